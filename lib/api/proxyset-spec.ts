// The ProxySet as the admin writes it (POST/PUT /api/proxysets/**, the dashboard's set form): a
// name, a template every member is made from, how many members, and the safety limits of the
// controller that keeps them. One zod schema for server and browser, so nothing here may touch
// node: modules. Durations are written like `30s`, `10m`, `1h30m`.
import { z } from 'zod';
import { proxySetLabel } from '@/lib/api/proxyset-label';
import { cloudInitBase64Schema, cloudInitSchema, defaultProxyPort, labelsSchema, placementSchema, proxyNameSchema } from '@/lib/proxy-spec';

/** The label every member carries: `proxyset=<set>`; a template may not set it itself. */
export { proxySetLabel };
/** Members are named `<set>-<suffix>`, the suffix 5 characters: the set's name leaves room for it. */
export const memberSuffixLength = 5;
export const maxSetNameLength = 63 - 1 - memberSuffixLength;
/** A set is for a handful to a few hundred proxies; more is a typo. */
export const maxReplicas = 1000;

/** Path segments of /api/proxysets/ that are routes of their own. */
export const reservedSetNames = ['preview'] as const;

export const proxySetNameSchema = proxyNameSchema
  .max(maxSetNameLength, { error: `must be at most ${maxSetNameLength} characters (members are named <set>-<${memberSuffixLength} characters>)` })
  .refine((name) => !(reservedSetNames as readonly string[]).includes(name), { error: `is reserved (${reservedSetNames.join(', ')}): choose another name` });

const durationPattern = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

/** Milliseconds of a duration such as `90s`, `10m`, `1h30m`; undefined when it is not one. */
export function durationMs(text: string): number | undefined {
  const match = durationPattern.exec(text);
  if (!match || text === '') return undefined;
  const [, hours = '0', minutes = '0', seconds = '0'] = match;
  return ((Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1000;
}

const durationSchema = (options: { minMs: number; maxMs: number }) =>
  z
    .string({ error: 'must be a duration such as 30s, 10m or 1h30m' })
    .refine((text) => durationMs(text) !== undefined, { error: 'must be a duration such as 30s, 10m or 1h30m', abort: true })
    .refine((text) => (durationMs(text) as number) >= options.minMs && (durationMs(text) as number) <= options.maxMs, {
      error: `must be between ${options.minMs / 1000}s and ${options.maxMs / 3_600_000}h`,
    });

const count = (options: { max: number }) =>
  z
    .int({ error: 'must be an integer' })
    .min(0, { error: `must be between 0 and ${options.max}` })
    .max(options.max, { error: `must be between 0 and ${options.max}` });

// zone is the one placement field a set decides itself (spread): say so, rather than "unknown field".
const templatePlacementSchema = z.preprocess(
  (value, context) => {
    if (value !== null && typeof value === 'object' && Object.hasOwn(value, 'zone')) {
      context.addIssue({ code: 'custom', path: ['zone'], message: 'a set places its members itself (spread over the hosts): leave zone out', input: value });
    }
    return value;
  },
  placementSchema.omit({ zone: true }),
);

const templateLabelsSchema = labelsSchema.refine((labels) => !Object.hasOwn(labels, proxySetLabel), {
  error: `"${proxySetLabel}" is set on every member by the set itself`,
});

const templateFields = {
  provider: placementSchema.shape.machineType,
  placement: templatePlacementSchema,
  port: z
    .int({ error: 'must be an integer' })
    .min(1, { error: 'must be between 1 and 65535' })
    .max(65535, { error: 'must be between 1 and 65535' })
    .default(defaultProxyPort),
  labels: templateLabelsSchema.default({}),
  cloudInitBase64: cloudInitBase64Schema.optional(),
};

const oneCloudInit = {
  check: (template: { cloudInit?: string; cloudInitBase64?: string }) => !(template.cloudInit && template.cloudInitBase64 !== undefined),
  params: { error: 'give cloudInit (text) or cloudInitBase64 (bytes), not both', path: ['cloudInitBase64'] },
};

/** What every member is made from: a Managed Proxy's spec without a zone. */
export const proxySetTemplateSchema = z
  .strictObject({ ...templateFields, cloudInit: cloudInitSchema.default('') })
  .refine(oneCloudInit.check, oneCloudInit.params);
export type ProxySetTemplate = z.output<typeof proxySetTemplateSchema>;

/** In a PUT, cloud-init left out keeps the stored one (the API never sends it back). */
const templateUpdateSchema = z.strictObject({ ...templateFields, cloudInit: cloudInitSchema.optional() }).refine(oneCloudInit.check, oneCloudInit.params);

export const defaultReadyTimeout = '10m';
export const defaultBudgetWindow = '30m';
export const defaultHostDownGrace = '5m';

/** At most `max` replacements (default: `replicas`) in any `window`. */
export const replacementBudgetSchema = z.strictObject({
  max: count({ max: maxReplicas }).optional(),
  window: durationSchema({ minMs: 60_000, maxMs: 7 * 24 * 3_600_000 }).default(defaultBudgetWindow),
});
export type ReplacementBudget = z.output<typeof replacementBudgetSchema>;

const settingsFields = {
  replicas: count({ max: maxReplicas }),
  readyTimeout: durationSchema({ minMs: 30_000, maxMs: 24 * 3_600_000 }).default(defaultReadyTimeout),
  replacementBudget: replacementBudgetSchema.default({ window: defaultBudgetWindow }),
  hostDownGrace: durationSchema({ minMs: 30_000, maxMs: 24 * 3_600_000 }).default(defaultHostDownGrace),
  maxSurge: count({ max: maxReplicas }).default(1),
  maxUnavailable: count({ max: maxReplicas }).default(0),
  paused: z.boolean({ error: 'must be true or false' }).default(false),
};

// With neither surge nor unavailability a rolling change could never start: say which to raise.
const rollable = {
  check: (set: { maxSurge: number; maxUnavailable: number }) => set.maxSurge > 0 || set.maxUnavailable > 0,
  params: { error: 'maxSurge and maxUnavailable cannot both be 0: a rolling change could never start; raise maxSurge', path: ['maxSurge'] },
};

/** POST /api/proxysets */
export const proxySetCreateSchema = z
  .strictObject({ name: proxySetNameSchema, template: proxySetTemplateSchema, ...settingsFields })
  .refine(rollable.check, rollable.params);
export type ProxySetCreateInput = z.input<typeof proxySetCreateSchema>;
export type ProxySetCreate = z.output<typeof proxySetCreateSchema>;

/** What a set is, as stored: everything but the name. */
export type ProxySetSpec = Omit<ProxySetCreate, 'name'>;

/** PUT /api/proxysets/{name}: the whole set again; a template change rolls the members. */
export const proxySetUpdateSchema = z.strictObject({ template: templateUpdateSchema, ...settingsFields }).refine(rollable.check, rollable.params);
export type ProxySetUpdateInput = z.input<typeof proxySetUpdateSchema>;
export type ProxySetUpdate = z.output<typeof proxySetUpdateSchema>;

/** POST /api/proxysets/{name}/scale */
export const proxySetScaleSchema = z.strictObject({ replicas: count({ max: maxReplicas }) });
export type ProxySetScale = z.output<typeof proxySetScaleSchema>;

/** POST /api/proxysets/{name}/replace: members to replace now (a member is deleted on its own no other way). */
export const proxySetReplaceSchema = z.strictObject({
  members: z.array(proxyNameSchema, { error: 'must be a list of member names' }).min(1, { error: 'name at least one member' }).max(maxReplicas),
});
export type ProxySetReplace = z.output<typeof proxySetReplaceSchema>;
