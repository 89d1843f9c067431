// The Proxy resource as the API, the dashboard's form and the control plane all see it: one zod
// schema for the spec (the shapes the server returns are in lib/api, re-exported here). Imported by
// server and browser code alike, so nothing here may touch node: modules.
import { z } from 'zod';

export const proxyModes = ['Managed', 'Static'] as const;
export type ProxyMode = (typeof proxyModes)[number];

/** What the API reports. The store never holds `Ready`: it is Running plus a healthy probe. */
export const proxyPhases = ['Pending', 'Provisioning', 'Running', 'Ready', 'Failed', 'Deleting'] as const;
export type ProxyPhase = (typeof proxyPhases)[number];

export const defaultProxyPort = 3128;
/** cloud-init user-data larger than this is refused: a NoCloud seed is not a file store. */
export const maxCloudInitBytes = 64 * 1024;
export const maxLabels = 32;

const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const labelName = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export const proxyNameSchema = z
  .string({ error: 'must be a string' })
  .max(63, { error: 'must be at most 63 characters' })
  .regex(dns1123Label, { error: 'must be a DNS-1123 label: lower-case letters, digits and dashes, starting and ending with a letter or digit' });

function isLabelKey(key: string): boolean {
  const slash = key.lastIndexOf('/');
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (prefix !== undefined && (prefix.length > 253 || !dnsSubdomain.test(prefix))) return false;
  return name.length <= 63 && labelName.test(name);
}

const labelValueSchema = z
  .string({ error: 'must be a string' })
  .max(63, { error: 'must be at most 63 characters' })
  .regex(/^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/, {
    error: 'may contain letters, digits, dashes, dots and underscores, starting and ending with a letter or digit',
  });

const labelRecord = z
  .record(z.string().refine(isLabelKey, { error: 'label keys are [prefix/]name: name up to 63 letters, digits, dashes, dots, underscores' }), labelValueSchema)
  .refine((labels) => Object.keys(labels).length <= maxLabels, { error: `at most ${maxLabels} labels` });

// A `__proto__` key would vanish on the way into an object (it sets the prototype instead), so a
// selector `__proto__=x` would select everything: refuse it by name before the record is built.
export const labelsSchema = z.preprocess((value, context) => {
  if (value !== null && typeof value === 'object' && Object.hasOwn(value, '__proto__')) {
    context.addIssue({ code: 'custom', message: '"__proto__" is not a label key', input: value });
  }
  return value;
}, labelRecord);

const stringError = { error: (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : 'must be a string') };
const nonEmpty = z.string(stringError).trim().min(1, { error: 'is required' }).max(253, { error: 'is too long' });

/** placement.zone that leaves the host to the control plane (as omitting it does with several hosts) */
export const autoZone = 'auto';
/** Why no host may be named `auto`: a Proxy could never be pinned to it. */
export const autoZoneReservedRule =
  'is reserved: placement.zone "auto" asks the control plane to choose a host, so a host of that name could never be chosen by name; pick another name';

export const placementSchema = z.strictObject({
  zone: nonEmpty.optional(),
  region: nonEmpty.optional(),
  machineType: nonEmpty,
  image: z.string(stringError).trim().min(1, { error: 'is required' }).max(2048, { error: 'is too long' }),
});
export type Placement = z.infer<typeof placementSchema>;

export function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}

export const cloudInitSchema = z
  .string({ error: 'must be a string' })
  .refine((text) => utf8Length(text) <= maxCloudInitBytes, { error: `must be at most ${maxCloudInitBytes} bytes` });

const base64Text = /^[A-Za-z0-9+/]*={0,2}$/;

/** The bytes of base64 text (RFC 4648, padded; line breaks and spaces ignored), or undefined. */
export function decodeBase64(text: string): Uint8Array | undefined {
  const compact = text.replace(/\s+/g, '');
  if (compact.length % 4 !== 0 || !base64Text.test(compact)) return undefined;
  const binary = atob(compact);
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

/**
 * cloud-init as base64, for user-data that is not UTF-8 text (a gzipped payload, say); delivered
 * byte for byte like `cloudInit`, under the same cap on the decoded bytes.
 */
export const cloudInitBase64Schema = z
  .string({ error: 'must be a string' })
  .refine((text) => decodeBase64(text) !== undefined, { error: 'must be base64 (RFC 4648, padded)', abort: true })
  .refine((text) => (decodeBase64(text)?.length ?? 0) <= maxCloudInitBytes, { error: `must decode to at most ${maxCloudInitBytes} bytes` });

/** The user-data bytes a Managed spec carries: cloudInitBase64 decoded, else cloudInit as UTF-8. */
export function cloudInitBytes(spec: { cloudInit?: string; cloudInitBase64?: string }): Uint8Array {
  if (spec.cloudInitBase64 !== undefined) return decodeBase64(spec.cloudInitBase64) ?? new Uint8Array();
  return new TextEncoder().encode(spec.cloudInit ?? '');
}

const oneCloudInit = {
  check: (spec: { cloudInit?: string; cloudInitBase64?: string }) => !(spec.cloudInit && spec.cloudInitBase64 !== undefined),
  params: { error: 'give cloudInit (text) or cloudInitBase64 (bytes), not both', path: ['cloudInitBase64'] },
};

const portSchema = z.int({ error: 'must be an integer' }).min(1, { error: 'must be between 1 and 65535' }).max(65535, { error: 'must be between 1 and 65535' });

/** A host name or an IP address, as the admin typed it for a Static proxy. */
export const addressSchema = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, { error: 'is required' })
  .max(253, { error: 'is too long' })
  .refine((text) => z.ipv4().safeParse(text).success || z.ipv6().safeParse(text).success || z.hostname().safeParse(text).success, {
    error: 'must be a host name or an IP address',
  });

const managedFields = {
  mode: z.literal('Managed'),
  provider: nonEmpty,
  placement: placementSchema,
  port: portSchema.default(defaultProxyPort),
  labels: labelsSchema.default({}),
};

const staticFields = {
  mode: z.literal('Static'),
  address: addressSchema,
  port: portSchema.default(defaultProxyPort),
  labels: labelsSchema.default({}),
};

const modeError = { error: `mode must be one of ${proxyModes.join(', ')}` };

/** The spec of a Proxy: what the admin asks for. */
export const proxySpecSchema = z.discriminatedUnion(
  'mode',
  [
    z
      .strictObject({ ...managedFields, cloudInit: cloudInitSchema.default(''), cloudInitBase64: cloudInitBase64Schema.optional() })
      .refine(oneCloudInit.check, oneCloudInit.params),
    z.strictObject(staticFields),
  ],
  modeError,
);
export type ProxySpec = z.output<typeof proxySpecSchema>;
export type ManagedProxySpec = Extract<ProxySpec, { mode: 'Managed' }>;
export type StaticProxySpec = Extract<ProxySpec, { mode: 'Static' }>;

/** POST /api/proxies: the spec plus the name. */
export const proxyCreateSchema = z.discriminatedUnion(
  'mode',
  [
    z
      .strictObject({ name: proxyNameSchema, ...managedFields, cloudInit: cloudInitSchema.default(''), cloudInitBase64: cloudInitBase64Schema.optional() })
      .refine(oneCloudInit.check, oneCloudInit.params),
    z.strictObject({ name: proxyNameSchema, ...staticFields }),
  ],
  modeError,
);
export type ProxyCreateInput = z.input<typeof proxyCreateSchema>;
export type ProxyCreate = z.output<typeof proxyCreateSchema>;

/**
 * PUT /api/proxies/{name}: the whole spec again. `cloudInit` (or `cloudInitBase64`) may be left
 * out to keep the stored one, because the API never sends it back. `mode` and `provider` cannot
 * change.
 */
export const proxyUpdateSchema = z.discriminatedUnion(
  'mode',
  [
    z
      .strictObject({ ...managedFields, cloudInit: cloudInitSchema.optional(), cloudInitBase64: cloudInitBase64Schema.optional() })
      .refine(oneCloudInit.check, oneCloudInit.params),
    z.strictObject(staticFields),
  ],
  modeError,
);
export type ProxyUpdateInput = z.input<typeof proxyUpdateSchema>;
export type ProxyUpdate = z.output<typeof proxyUpdateSchema>;

export interface FieldError {
  /** dotted path of the field, e.g. `placement.machineType`; empty for the body as a whole */
  path: string;
  message: string;
}

/** zod issues as one entry per field; an unknown key is reported under its own path. */
export function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.flatMap((issue) => {
    const base = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: [...base, key].join('.'), message: 'is not a known field' }));
    }
    return [{ path: base.join('.'), message: issue.message }];
  });
}

export const conditionTypes = ['Provisioned', 'Healthy'] as const;
export type ConditionType = (typeof conditionTypes)[number];

// The shapes the server returns (status, events, discovery) are the API contract's, in lib/api.
export type { Condition, ConditionStatus, DiscoveredProxy, ErrorClassName, ProxyEventView, ProxyStatusView, ProxyView } from './api/proxies';
