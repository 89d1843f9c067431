// The client's methods, derived from the procedure rows (procedures.ts) as go-libvirt generates
// one method per procedure of the .x file. Each takes ONE options object: the procedure's .x
// argument fields (dom, pool, vol, name, xml, flags, ...) next to the call's own options (signal,
// budget, and a stream's source or high-water mark), and answers the reply field its row names.
// `flags` defaults to 0, `need_results` is always 1, optional (pointer) fields default to null,
// and a row's `defaults` fill the rest.
import type { CallOptions } from './client';
import type { DuplexOptions, DuplexStream } from './duplex-stream';
import { procedures, type ArgsOf, type ProcedureName, type Procedures, type RetOf } from './procedures';
import type { DownloadOptions, UploadOptions, UploadResult } from './stream';

type NullableKeys<A> = { [K in keyof A]-?: null extends A[K] ? K : never }[keyof A];
type DefaultedKeys<N extends ProcedureName> = Extract<keyof ArgsOf<N>, 'flags' | NullableKeys<ArgsOf<N>> | keyof Procedures[N]['defaults']>;

/** Procedure N's arguments as its wrapper takes them: the ones with a default may be left out. */
export type ArgsOptions<N extends ProcedureName> =
  ArgsOf<N> extends object ? Omit<ArgsOf<N>, DefaultedKeys<N> | 'need_results'> & Partial<Pick<ArgsOf<N>, Exclude<DefaultedKeys<N>, 'need_results'>>> : unknown;

/** The part of procedure N's reply its wrapper answers: the field the row names, or all of it. */
export type ResultOf<N extends ProcedureName> = Procedures[N]['result'] extends keyof RetOf<N> ? RetOf<N>[Procedures[N]['result']] : RetOf<N>;

type StreamOf<N extends ProcedureName> = Procedures[N]['stream'];

/** What the wrapper of procedure N takes: its arguments and the call's (or stream's) own options. */
export type OptionsOf<N extends ProcedureName> = ArgsOptions<N> &
  (StreamOf<N> extends 'upload'
    ? UploadOptions & { source: AsyncIterable<Uint8Array> }
    : StreamOf<N> extends 'download'
      ? DownloadOptions
      : StreamOf<N> extends 'duplex'
        ? DuplexOptions
        : CallOptions);

type ReturnOf<N extends ProcedureName> =
  StreamOf<N> extends 'upload'
    ? Promise<UploadResult>
    : StreamOf<N> extends 'download'
      ? AsyncIterable<Buffer>
      : StreamOf<N> extends 'duplex'
        ? Promise<DuplexStream>
        : Promise<ResultOf<N>>;

/** Procedures with a wrapper (not the handshake's, close's or event registration's own). */
export type WrappedName = { [N in ProcedureName]: Procedures[N]['hidden'] extends true ? never : N }[ProcedureName];

/** The wrapper of procedure N; its options may be left out when every field has a default. */
export type DerivedCall<N extends ProcedureName> =
  object extends OptionsOf<N> ? (options?: OptionsOf<N>) => ReturnOf<N> : (options: OptionsOf<N>) => ReturnOf<N>;

export type DerivedCalls = { [N in WrappedName]: DerivedCall<N> };

export const wrappedNames = (Object.keys(procedures) as ProcedureName[]).filter((name) => !procedures[name].hidden) as WrappedName[];

const fieldDefaults: Record<string, unknown> = { flags: 0 };

/**
 * Procedure `name`'s arguments from a wrapper's options: the row's fields only (the call's own
 * options stay out), each the caller's value or its default. A field left without a value makes
 * the encoder throw, as any argument the wire cannot carry does.
 */
export function procedureArgs<N extends ProcedureName>(name: N, options: object = {}): ArgsOf<N> {
  const row = procedures[name];
  const { info } = row.args;
  if (info.kind !== 'struct') return undefined as ArgsOf<N>;
  const given = options as Record<string, unknown>;
  const defaults = ('defaults' in row ? row.defaults : {}) as Record<string, unknown>;
  const args: Record<string, unknown> = {};
  for (const [field, shape] of info.fields) {
    if (field === 'need_results') args[field] = 1;
    else if (given[field] !== undefined) args[field] = given[field];
    else if (defaults[field] !== undefined) args[field] = defaults[field];
    else if (fieldDefaults[field] !== undefined) args[field] = fieldDefaults[field];
    else if (shape.info.kind === 'optional') args[field] = null;
  }
  return args as ArgsOf<N>;
}

/** The wrapper's answer from the decoded reply: the field the row names, or the whole reply. */
export function resultOf<N extends ProcedureName>(name: N, ret: RetOf<N>): ResultOf<N> {
  const { result } = procedures[name] as { result?: string };
  return (result === undefined ? ret : (ret as Record<string, unknown>)[result]) as ResultOf<N>;
}
