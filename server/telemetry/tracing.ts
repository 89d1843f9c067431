// OpenTelemetry tracing. With an OTLP endpoint in the standard OTEL_* environment variables the
// spans are exported; otherwise the API stays a no-op and costs nothing.
import { trace, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace-node';

const tracerName = 'kvm2-proxies';

let provider: NodeTracerProvider | undefined;

/** True when the environment asks for spans to be exported over OTLP. */
export function otlpConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_TRACES_EXPORTER === 'none' || env.OTEL_SDK_DISABLED === 'true') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Registers the global tracer provider once. `processors` replaces the OTLP exporter (tests pass
 * an in-memory one); without either, nothing is registered.
 */
export function startTracing(processors?: SpanProcessor[]): void {
  if (provider) return;
  const spanProcessors = processors ?? (otlpConfigured() ? [new BatchSpanProcessor(new OTLPTraceExporter())] : []);
  if (spanProcessors.length === 0) return;
  provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME ?? tracerName }),
    spanProcessors,
  });
  provider.register();
}

export async function stopTracing(): Promise<void> {
  const current = provider;
  provider = undefined;
  await current?.shutdown();
  trace.disable();
}

export function tracer(): Tracer {
  return trace.getTracer(tracerName);
}

/** The active span's ids, for log lines written inside it. */
export function activeSpanIds(): { traceID: string; spanID: string } | undefined {
  const context = trace.getActiveSpan()?.spanContext();
  if (!context || !trace.isSpanContextValid(context)) return undefined;
  return { traceID: context.traceId, spanID: context.spanId };
}
