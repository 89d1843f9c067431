// How a kvm2 provider operation runs: in its span, and on failure logged once with the raw error
// before it returns classified (errors.ts); and the host and domain its log lines name.
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { ProviderError } from '@/server/providers/errors';
import type { Logger } from '@/server/telemetry/logger';
import { tracer } from '@/server/telemetry/tracing';
import { errorMessage } from '@/lib/error-message';
import { classify, type Kvm2Operation } from './errors';
import type { Kvm2Settings } from './kvm2';
import { readProviderID } from './provider-id';

export interface OperationSpec {
  op: Kvm2Operation;
  span: string;
  attributes: Record<string, string>;
  /** the instance the operation is about: every line about it carries `host` and `name` */
  instance?: { host: string | undefined; name: string | undefined };
}

/** Runs `work` in the operation's span; a failure is logged (debug) and rethrown classified. */
export function tracedOperation<T>(
  options: { provider: { name: string; type: string }; logger: Logger; spec: OperationSpec },
  work: () => Promise<T>,
): Promise<T> {
  const { provider, logger, spec } = options;
  const attributes = { 'provider.name': provider.name, 'provider.type': provider.type, ...spec.attributes };
  return tracer().startActiveSpan(spec.span, { kind: SpanKind.INTERNAL, attributes }, async (span) => {
    try {
      return await work();
    } catch (err) {
      const classified = classify(err, { op: spec.op });
      span.setStatus({ code: SpanStatusCode.ERROR, message: classified.message });
      span.setAttribute('provider.error_class', classified.errorClass);
      const fields = { ...spec.attributes, ...spec.instance };
      if (classified.errorClass === 'notFound') {
        logger.debug({ ...fields, error: classified.message }, 'kvm2 domain not found');
      } else {
        logger.debug({ op: spec.op, ...fields, error: rawMessage(err) }, 'kvm2 backend call failed');
      }
      throw classified;
    } finally {
      span.end();
    }
  });
}

/** Host and domain of a providerID, as far as it can be read (a malformed one fails later, classified). */
export function instanceOf(providerID: string): { host: string | undefined; name: string | undefined } {
  const { host, domain } = readProviderID(providerID);
  return { host, name: domain };
}

/** The host placement.zone selects, or undefined when it selects none (Create reports why). */
export function zoneHost(settings: Kvm2Settings, zone: string | undefined): string | undefined {
  if (zone) return zone;
  return settings.hosts.length === 1 ? settings.hosts[0]?.name : undefined;
}

function rawMessage(err: unknown): string {
  // The raw error is the one under a classification wrapper, if any.
  const raw = err instanceof ProviderError && err.cause instanceof Error ? err.cause : err;
  return errorMessage(raw);
}
