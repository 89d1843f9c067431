// Bodies of the provider routes (/api/providers/**): each configured provider with the latest
// health of its targets, the health history for the charts, one host's inventory (pools, cached
// base images, domains, downloads) and the eviction of a cached image.
import { z } from 'zod';
import { collection } from './collection';
import { downloadProgressSchema } from './proxies';

/** The storage a target keeps instances on, as far as its check got (kvm2: the host's pool). */
export const targetPoolSchema = z.strictObject({
  name: z.string(),
  /** virsh's word: running, inactive, building, degraded, inaccessible */
  state: z.string().optional(),
  capacityBytes: z.number().optional(),
  availableBytes: z.number().optional(),
});
export type TargetPoolView = z.infer<typeof targetPoolSchema>;

/** One health target of a provider (kvm2: one per configured host). */
export const targetSchema = z.strictObject({
  name: z.string(),
  ready: z.boolean(),
  /** a provider-specific reason word, e.g. kvm2's `Reachable`, `Unauthorized`, `PoolNotActive` */
  reason: z.string(),
  message: z.string(),
  /** facts gathered before the check finished or broke (kvm2: user, pool, poolAvailableGiB, ...) */
  details: z.record(z.string(), z.string()),
  /** the pool facts typed; read these rather than the same facts as text in `details` (absent from servers before it) */
  pool: targetPoolSchema.optional(),
  latencyMs: z.number(),
  /** RFC 3339 */
  checkedAt: z.string(),
});
export type TargetView = z.infer<typeof targetSchema>;

export const providerSummarySchema = z.strictObject({
  name: z.string(),
  type: z.string(),
  /** false when the entry could not be built (see `reason`) */
  available: z.boolean(),
  reason: z.string().optional(),
  /** latest check per target, in the provider's order; empty before the first check */
  targets: z.array(targetSchema),
});
export type ProviderSummary = z.infer<typeof providerSummarySchema>;

export const providerListSchema = collection('providers', providerSummarySchema);
export type ProviderList = z.infer<typeof providerListSchema>;

export const healthSampleSchema = z.strictObject({
  target: z.string(),
  ready: z.boolean(),
  reason: z.string(),
  latencyMs: z.number(),
  checkedAt: z.string(),
  /** the pool's free space at that check; absent when unknown */
  poolAvailableGiB: z.number().optional(),
});
export type HealthSample = z.infer<typeof healthSampleSchema>;

/** Checks since `since`, oldest first. */
export const healthHistorySchema = z.strictObject({ provider: z.string(), since: z.string(), samples: z.array(healthSampleSchema) });
export type HealthHistory = z.infer<typeof healthHistorySchema>;

export const poolSchema = z.strictObject({
  name: z.string(),
  /** virsh's word: running, inactive, building, degraded, inaccessible */
  state: z.string(),
  capacityBytes: z.number(),
  allocationBytes: z.number(),
  availableBytes: z.number(),
  /** the pool the provider uses on this host */
  configured: z.boolean(),
});
export type PoolView = z.infer<typeof poolSchema>;

export const cachedImageSchema = z.strictObject({
  /** the base volume's name (also its marker's name without `.sha256`) */
  volume: z.string(),
  markerVolume: z.string(),
  /** the provider entry that cached it */
  entry: z.string(),
  /** the image key (or URL key) it was cached for */
  key: z.string(),
  format: z.string(),
  sizeBytes: z.number().optional(),
  allocationBytes: z.number().optional(),
  /** the digest the marker holds */
  sha256: z.string().optional(),
  /** base and a marker holding a digest: what Create reuses */
  complete: z.boolean(),
  baseExists: z.boolean(),
  markerExists: z.boolean(),
  /** how many domains on this host back onto the image, and which */
  usedBy: z.number(),
  domains: z.array(z.string()),
});
export type CachedImageView = z.infer<typeof cachedImageSchema>;

/** managed: ours, with its Proxy; orphaned: ours, no Proxy owns it; kvm-gen-1: the first-generation provider's; foreign: anyone else's. */
export const domainKinds = ['managed', 'orphaned', 'kvm-gen-1', 'foreign'] as const;
export type DomainKind = (typeof domainKinds)[number];

export const domainSchema = z.strictObject({
  name: z.string(),
  /** virsh's word, e.g. running, shut off; `unknown` when it could not be read */
  state: z.string(),
  kind: z.enum(domainKinds),
  /** the owning Proxy, for kind managed */
  proxy: z.string().optional(),
  ip: z.string().optional(),
  /** the owner uid on the provider's mark (managed and orphaned) */
  uid: z.string().optional(),
  created: z.string().optional(),
  /** why the domain is not what it looks like (an unreadable mark, a state that could not be read) */
  note: z.string().optional(),
});
export type DomainView = z.infer<typeof domainSchema>;

export const hostInventorySchema = z.strictObject({
  provider: z.string(),
  host: z.string(),
  /** the pool the provider uses on this host */
  pool: z.string(),
  pools: z.array(poolSchema),
  images: z.array(cachedImageSchema),
  domains: z.array(domainSchema),
  /** base-image downloads running on this host */
  downloads: z.array(downloadProgressSchema),
});
export type HostInventoryView = z.infer<typeof hostInventorySchema>;

export const evictOutcomeSchema = z.strictObject({
  host: z.string(),
  volume: z.string(),
  /** volumes deleted, in order (marker first) */
  removed: z.array(z.string()),
});
export type EvictOutcomeView = z.infer<typeof evictOutcomeSchema>;
