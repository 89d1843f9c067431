// A span and a `libvirt call` log line per libvirt RPC, as a decorator over the LibvirtAPI.
// The span is `kvm2.<Rpc>` (go-libvirt's method name, e.g. kvm2.DomainLookupByName), a client
// span with kvm2.host and the identifiers the call was given; a failure sets status Error and,
// for a daemon error, kvm2.libvirt_code. The log line is written inside the span, so its
// spanID points at it. With trace enabled (our stand-in for the spec's V(2)) the line also carries
// the call's detail (xml, metadata, addresses, pool state and sizes, volume path); never a
// transfer body, cloud-init or key material: uploads and downloads report offset and length.
import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { Logger } from '@/server/telemetry/logger';
import { tracer } from '@/server/telemetry/tracing';
import { libvirtErrorIn } from './errors';
import type { LibvirtAPI } from './libvirt-api';
import { identifiersIn, rpcCalls, rpcMethods, rpcName, rpcStreamsDown, type RpcIdentifiers, type RpcMethod } from './rpc-calls';
import { errorMessage } from '@/lib/error-message';

export interface ObserveOptions {
  /** The configured host name (kvm2.host). */
  host: string;
  /** Lines go here at debug (trace for the detail); it should already carry `provider` and `host`. */
  logger: Logger;
}

type AnyMethod = (options?: unknown) => unknown;
/** A method's span name and what rpc-calls.ts adds for it. */
interface AnyCall {
  name: string;
  ids?: (options: unknown) => RpcIdentifiers;
  resultIds?: (result: unknown) => RpcIdentifiers;
  detail?: (options: unknown, result: unknown) => Record<string, unknown>;
}

const spanAttributeOf: Record<keyof RpcIdentifiers, string> = {
  domain: 'kvm2.domain',
  pool: 'kvm2.pool',
  volume: 'kvm2.volume',
};

/** One RPC being observed: its span, timing and identifiers, and the line written at its end. */
class ObservedCall {
  readonly span: Span;
  private readonly started = performance.now();
  private ids: RpcIdentifiers;

  constructor(
    private readonly call: AnyCall,
    private readonly args: unknown,
    private readonly options: ObserveOptions,
  ) {
    this.ids = call.ids ? call.ids(args) : identifiersIn(args);
    this.span = tracer().startSpan(`kvm2.${call.name}`, { kind: SpanKind.CLIENT, attributes: { 'kvm2.host': options.host } });
    this.setIdAttributes(this.ids);
  }

  /** Runs `fn` with this call's span active (so a dial it triggers, or a line it logs, nests under it). */
  within<T>(fn: () => T): T {
    return context.with(trace.setSpan(context.active(), this.span), fn);
  }

  succeeded(result: unknown): void {
    const fromResult = this.call.resultIds?.(result) ?? {};
    this.ids = { ...this.ids, ...fromResult };
    this.setIdAttributes(fromResult);
    this.finish({ result });
  }

  failed(err: unknown): void {
    const libvirtError = libvirtErrorIn(err);
    const message = errorMessage(err);
    this.span.recordException(err instanceof Error ? err : new Error(message));
    this.span.setStatus({ code: SpanStatusCode.ERROR, message });
    if (libvirtError) this.span.setAttribute('kvm2.libvirt_code', libvirtError.code);
    this.finish({
      failure: {
        error: message,
        ...(libvirtError ? { libvirtCode: libvirtError.code, libvirtError: libvirtError.codeName } : {}),
      },
    });
  }

  private setIdAttributes(ids: RpcIdentifiers): void {
    for (const [key, value] of Object.entries(ids) as Array<[keyof RpcIdentifiers, string | undefined]>) {
      if (value !== undefined) this.span.setAttribute(spanAttributeOf[key], value);
    }
  }

  private finish(outcome: { result?: unknown; failure?: Record<string, unknown> }): void {
    const { logger } = this.options;
    const duration = Math.round((performance.now() - this.started) * 100) / 100;
    const detailed = logger.isLevelEnabled('trace');
    const detail = detailed ? (this.call.detail?.(this.args, outcome.result) ?? {}) : {};
    const fields = { rpc: this.call.name, ...this.ids, duration, ...outcome.failure, ...detail };
    this.within(() => logger.debug(fields, 'libvirt call'));
    this.span.end();
  }
}

/** Wraps an async iterable (a download) so the span covers the whole transfer. */
function observeIterable(source: () => AsyncIterable<unknown>, observed: ObservedCall): AsyncIterable<unknown> {
  return {
    async *[Symbol.asyncIterator]() {
      let completed = false;
      try {
        const iterable = observed.within(source);
        for await (const chunk of iterable) yield chunk;
        completed = true;
        observed.succeeded(undefined);
      } catch (err) {
        completed = true;
        observed.failed(err);
        throw err;
      } finally {
        // The consumer stopped early (break / return): the transfer ended without an error.
        if (!completed) observed.succeeded(undefined);
      }
    },
  };
}

/** `api` with a span and a `libvirt call` line around every call. */
export function observe(api: LibvirtAPI, options: ObserveOptions): LibvirtAPI {
  const wrapped: Partial<Record<RpcMethod, AnyMethod>> = {};
  for (const method of rpcMethods) {
    const target = api[method] as AnyMethod;
    const call = { name: rpcName(method), ...rpcCalls[method] } as AnyCall;
    if (rpcStreamsDown(method)) {
      // The call is made on the first iteration, so that is where the span starts.
      wrapped[method] = (args?: unknown) => ({
        [Symbol.asyncIterator]: () =>
          observeIterable(() => target.call(api, args) as AsyncIterable<unknown>, new ObservedCall(call, args, options))[Symbol.asyncIterator](),
      });
      continue;
    }
    wrapped[method] = async (args?: unknown) => {
      const observed = new ObservedCall(call, args, options);
      try {
        const result = await observed.within(() => target.call(api, args));
        observed.succeeded(result);
        return result;
      } catch (err) {
        observed.failed(err);
        throw err;
      }
    };
  }
  return wrapped as LibvirtAPI;
}
