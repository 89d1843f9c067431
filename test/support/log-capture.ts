// A logger whose JSON lines a test can read back: every line written, parsed, in order.
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '@/server/telemetry/logger';

export type LogLine = Record<string, unknown>;

export function captureLogs(level = 'info'): { lines: LogLine[]; logger: Logger } {
  const lines: LogLine[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  return { lines, logger: createLogger({ level, destination }) };
}
