// The process's structured logger: pino, JSON lines on stdout, level from LOG_LEVEL (default
// 'info'). Components take a child named after themselves (key `logger`, e.g. `control-plane`,
// `kvm2`) so every line says where it came from; `name` is left to what lines are about (a
// domain). A line written inside a traced operation carries that span's traceID and spanID.
//
// One key per field, always: pino writes a child's bindings and a call's fields side by side, so
// a key bound twice (or bound and passed again) appears twice in the JSON. Bind with bindOnce
// where the parent may carry the key already, and never pass a field the logger binds.
//
// Verbosity follows the spec's logr levels: V(0) lines at info, V(1) at debug
// (`--zap-log-level=debug`), V(2) at trace (`--zap-log-level=2`). LOG_LEVEL=debug or trace.
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

/** A child of `parent` (the root logger by default) whose lines carry `logger: name`. */
export function logger(name: string, parent: Logger = rootLogger()): Logger {
  return bindOnce(parent, { logger: name });
}

/** `parent` with `fields` bound, except keys it binds already (its value stands). */
export function bindOnce(parent: Logger, fields: Record<string, unknown>): Logger {
  const bound = parent.bindings();
  const missing = Object.fromEntries(Object.entries(fields).filter(([key]) => !(key in bound)));
  return Object.keys(missing).length === 0 ? parent : parent.child(missing);
}
