// Spans recorded in memory for a test file: tracing registered once for the file, the spans
// forgotten after each test.
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startTracing, stopTracing } from '@/server/telemetry/tracing';

export function captureSpans(): InMemorySpanExporter {
  const exporter = new InMemorySpanExporter();
  beforeAll(() => startTracing([new SimpleSpanProcessor(exporter)]));
  afterAll(() => stopTracing());
  afterEach(() => exporter.reset());
  return exporter;
}
