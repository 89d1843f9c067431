// The process's structured logger: pino, JSON lines on stdout, level from LOG_LEVEL (default
// 'info'). Components take a child named after themselves so every line says where it came from.
// A line written inside a traced operation carries that span's traceID and spanID.
import pino, { type DestinationStream, type Logger, type LoggerOptions as PinoOptions } from 'pino';
import { activeSpanIds } from './tracing';

export type { Logger } from 'pino';

export interface LoggerOptions {
  /** overrides LOG_LEVEL; 'silent' turns logging off */
  level?: string;
  /** where the JSON lines go; stdout when omitted (tests pass an in-memory stream) */
  destination?: DestinationStream;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const pinoOptions: PinoOptions = { level: options.level ?? process.env.LOG_LEVEL ?? 'info', mixin: () => activeSpanIds() ?? {} };
  return options.destination ? pino(pinoOptions, options.destination) : pino(pinoOptions);
}

let root: Logger | undefined;

/** The shared root logger, created on first use so LOG_LEVEL is read after the env is set up. */
export function rootLogger(): Logger {
  root ??= createLogger();
  return root;
}

/** A child of `parent` (the root logger by default) whose lines carry `name`. */
export function logger(name: string, parent: Logger = rootLogger()): Logger {
  return parent.child({ name });
}
