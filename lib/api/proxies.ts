// Bodies of the Proxy routes (/api/proxies/**) and of the discovery API crawler clients call.
// cloud-init is never echoed: a Proxy view carries only its size.
import { z } from 'zod';
import { conditionTypes, proxyModes, proxyPhases } from '@/lib/proxy-spec';
import { collection } from './collection';

const labels = z.record(z.string(), z.string());

export const conditionSchema = z.strictObject({
  type: z.enum(conditionTypes),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string(),
  message: z.string(),
  /** RFC 3339; changes only when `status` flips */
  lastTransitionTime: z.string(),
});
export type Condition = z.infer<typeof conditionSchema>;
export type ConditionStatus = Condition['status'];

export const errorClassNames = ['permanent', 'transient', 'notFound', 'quotaExceeded', 'unclassified'] as const;
export type ErrorClassName = (typeof errorClassNames)[number];

/** The host the control plane chose for a Proxy without placement.zone; kept for the Proxy's life. */
export const chosenPlacementSchema = z.strictObject({
  zone: z.string(),
  /** e.g. `lab2: 180 GiB free, 3.1 GiB memory free, 2 VMs (spread)` */
  reason: z.string(),
  /** RFC 3339 */
  at: z.string(),
});
export type ChosenPlacement = z.infer<typeof chosenPlacementSchema>;

export const proxyStatusSchema = z.strictObject({
  phase: z.enum(proxyPhases),
  ip: z.string().optional(),
  healthy: z.boolean(),
  /** the provider's handle on the instance; opaque (read `host` for where it runs) */
  providerID: z.string().optional(),
  /** the host the instance is on, once the reconciler has seen it */
  host: z.string().optional(),
  conditions: z.array(conditionSchema),
  /** the spec hash this status was computed for */
  observedSpecHash: z.string().optional(),
  /** the hash of the current spec; differs from observedSpecHash until the reconciler catches up */
  specHash: z.string(),
  lastError: z.strictObject({ class: z.enum(errorClassNames), message: z.string(), at: z.string() }).optional(),
  egressIP: z.string().optional(),
  probeLatencyMs: z.number().optional(),
  probedAt: z.string().optional(),
  chosenPlacement: chosenPlacementSchema.optional(),
});
export type ProxyStatusView = z.infer<typeof proxyStatusSchema>;

export const proxyViewSchema = z.strictObject({
  uid: z.string(),
  name: z.string(),
  mode: z.enum(proxyModes),
  provider: z.string().optional(),
  placement: z.strictObject({ zone: z.string().optional(), region: z.string().optional(), machineType: z.string(), image: z.string() }).optional(),
  address: z.string().optional(),
  port: z.number(),
  labels,
  cloudInit: z.strictObject({ bytes: z.number() }).optional(),
  /** the deterministic instance (domain) name of a Managed proxy */
  instanceName: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  deletionRequestedAt: z.string().optional(),
  status: proxyStatusSchema,
});
export type ProxyView = z.infer<typeof proxyViewSchema>;

export const proxyListSchema = collection('proxies', proxyViewSchema);
export type ProxyList = z.infer<typeof proxyListSchema>;

export const proxyEventSchema = z.strictObject({
  id: z.number(),
  type: z.enum(['Normal', 'Warning']),
  reason: z.string(),
  message: z.string(),
  /** how many times this event repeated in a row */
  count: z.number(),
  firstAt: z.string(),
  lastAt: z.string(),
});
export type ProxyEventView = z.infer<typeof proxyEventSchema>;

export const proxyEventListSchema = collection('events', proxyEventSchema);
export type ProxyEventList = z.infer<typeof proxyEventListSchema>;

/** Live progress of a base-image download (bytes, rate, ETA). */
export const downloadProgressSchema = z.strictObject({
  host: z.string(),
  volume: z.string(),
  /** the image URL's host, never its path or credentials */
  urlHost: z.string(),
  totalBytes: z.number(),
  doneBytes: z.number(),
  /** epoch ms */
  startedAt: z.number(),
  /** bytes per second since the start; 0 until the first chunk */
  bytesPerSecond: z.number(),
  /** seconds left at the current rate, or null while unknown */
  etaSeconds: z.number().nullable(),
});
export type DownloadProgress = z.infer<typeof downloadProgressSchema>;

/** The download this Proxy waits on; null when none runs. */
export const proxyDownloadSchema = z.strictObject({ download: downloadProgressSchema.nullable() });
export type ProxyDownload = z.infer<typeof proxyDownloadSchema>;

/** One probe of a Proxy through itself, for the latency chart. */
export const probeSampleSchema = z.strictObject({
  probedAt: z.string(),
  healthy: z.boolean(),
  latencyMs: z.number(),
});
export type ProbeSample = z.infer<typeof probeSampleSchema>;

/** Probes since `since`, oldest first; older than a day, one per bucket (downsampled). */
export const probeHistorySchema = z.strictObject({ proxy: z.string(), since: z.string(), samples: z.array(probeSampleSchema) });
export type ProbeHistory = z.infer<typeof probeHistorySchema>;

/** What crawler clients get: Ready proxies only. */
export const discoveredProxySchema = z.strictObject({ name: z.string(), url: z.string(), labels, egressIP: z.string().optional() });
export type DiscoveredProxy = z.infer<typeof discoveredProxySchema>;

export const discoveryListSchema = collection('proxies', discoveredProxySchema);
export type DiscoveryList = z.infer<typeof discoveryListSchema>;
