// Route params and query strings of the API, as zod schemas. Bodies use the shared schemas in
// lib/proxy-spec.ts and lib/api/auth.ts.
import { z } from 'zod';
import { proxySetLabel, proxySetNameSchema } from '@/lib/api/proxyset-spec';
import { statsWindows } from '@/lib/api/stats';
import { labelsSchema, proxyModes, proxyNameSchema, proxyPhases } from '@/lib/proxy-spec';

const pathSegment = z
  .string({ error: 'must be a string' })
  .min(1, { error: 'is required' })
  .max(253, { error: 'is too long' })
  .regex(/^[^/\u0000-\u001f\u007f]+$/, { error: 'must not contain slashes or control characters' });

export const proxyParams = z.strictObject({ name: proxyNameSchema });
export const proxySetParams = z.strictObject({ name: proxySetNameSchema });
export const providerParams = z.strictObject({ provider: pathSegment });
export const hostParams = z.strictObject({ provider: pathSegment, host: pathSegment });
export const imageParams = z.strictObject({
  provider: pathSegment,
  host: pathSegment,
  volume: z
    .string({ error: 'must be a string' })
    .max(255, { error: 'is too long' })
    .regex(/^[A-Za-z0-9._-]+$/, { error: 'must be a volume name: letters, digits, dots, dashes and underscores' }),
});

const oneValue = (what: string) => z.string({ error: `give ${what} once` });

/** `key=value` pairs, comma-separated, from one or more `labels=` / `label=` parameters. */
const labelSelector = z.union([z.string(), z.array(z.string())]).transform((value, context) => {
  const pairs = (Array.isArray(value) ? value : [value]).flatMap((item) => item.split(',')).filter((pair) => pair.trim() !== '');
  const selected: Array<[string, string]> = [];
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) {
      context.addIssue({ code: 'custom', message: 'must be key=value pairs, comma-separated' });
      return z.NEVER;
    }
    selected.push([pair.slice(0, eq).trim(), pair.slice(eq + 1).trim()]);
  }
  // fromEntries keeps every key as data (assignment would turn `__proto__` into the prototype).
  const checked = labelsSchema.safeParse(Object.fromEntries(selected));
  if (!checked.success) {
    context.addIssue({ code: 'custom', message: checked.error.issues[0]?.message ?? 'is not a label selector' });
    return z.NEVER;
  }
  return checked.data;
});

const mergeLabels = (query: { labels?: Record<string, string>; label?: Record<string, string> }) =>
  query.labels || query.label ? { labels: { ...query.label, ...query.labels } } : {};

export const proxyListQuery = z
  .strictObject({
    labels: labelSelector.optional(),
    label: labelSelector.optional(),
    mode: z.enum(proxyModes, { error: `must be one of ${proxyModes.join(', ')}` }).optional(),
    provider: oneValue('provider').min(1).optional(),
    phase: z.enum(proxyPhases, { error: `must be one of ${proxyPhases.join(', ')}` }).optional(),
  })
  .transform(({ labels, label, ...rest }) => ({ ...rest, ...mergeLabels({ labels, label }) }));

/** `set=<name>`: only the members of that ProxySet (their `proxyset` label). */
export const discoveryQuery = z
  .strictObject({ labels: labelSelector.optional(), label: labelSelector.optional(), set: proxySetNameSchema.optional() })
  .transform(({ set, ...query }) => {
    const { labels } = mergeLabels(query);
    return set === undefined ? (labels ? { labels } : {}) : { labels: { ...labels, [proxySetLabel]: set } };
  });

export const defaultHealthWindowMs = 24 * 60 * 60 * 1000;

/** RFC 3339 time or epoch milliseconds. */
const instant = oneValue('since').transform((text, context) => {
  const ms = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (!Number.isFinite(ms)) {
    context.addIssue({ code: 'custom', message: 'must be an RFC 3339 time or epoch milliseconds' });
    return z.NEVER;
  }
  return ms;
});

export const healthQuery = z.strictObject({ since: instant.optional(), target: pathSegment.optional() }).transform((query) => ({
  sinceMs: query.since ?? Date.now() - defaultHealthWindowMs,
  ...(query.target ? { target: query.target } : {}),
}));

/** The probe history window: `since`, a day back by default. */
export const probesQuery = z.strictObject({ since: instant.optional() }).transform((query) => ({ sinceMs: query.since ?? Date.now() - defaultHealthWindowMs }));

export const eventsQuery = z.strictObject({
  limit: z.coerce
    .number({ error: 'must be a number' })
    .int({ error: 'must be an integer' })
    .min(1, { error: 'must be between 1 and 1000' })
    .max(1000, { error: 'must be between 1 and 1000' })
    .optional(),
});

/** The machine type whose memory the placement preview must fit. */
export const placementQuery = z.strictObject({ machineType: oneValue('machineType').min(1, { error: 'is required' }).max(253, { error: 'is too long' }) });

/** GET /api/events: where to resume when the client cannot send Last-Event-ID (a stream it opened anew). */
export const liveEventsQuery = z.strictObject({
  lastEventId: oneValue('lastEventId').max(200, { error: 'is too long' }).optional(),
});

/** The stats window: 1h (10 s points), 24h (1 min), 7d (10 min); 1h by default. */
export const statsQuery = z.strictObject({
  window: z.enum(statsWindows, { error: `must be one of ${statsWindows.join(', ')}` }).default('1h'),
});
