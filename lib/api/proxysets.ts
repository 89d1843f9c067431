// Bodies the ProxySet routes (/api/proxysets/**) answer. The set's input schemas are in
// proxyset-spec.ts; cloud-init is never echoed, a view carries only its size.
import { z } from 'zod';
import { collection } from './collection';

export const proxySetConditionTypes = ['ReplacementsExhausted', 'Available'] as const;

export const proxySetConditionSchema = z.strictObject({
  type: z.enum(proxySetConditionTypes),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string(),
  message: z.string(),
  /** RFC 3339; changes only when `status` flips */
  lastTransitionTime: z.string(),
});
export type ProxySetCondition = z.infer<typeof proxySetConditionSchema>;

export const replacementCauses = ['Failed', 'NotReady'] as const;

/** One member the set replaced, and why. */
export const proxySetReplacementSchema = z.strictObject({
  member: z.string(),
  /** RFC 3339 */
  at: z.string(),
  cause: z.enum(replacementCauses),
  /** the first failing step of the member's diagnosis; null when none failed */
  firstFailure: z.string().nullable(),
});
export type ProxySetReplacement = z.infer<typeof proxySetReplacementSchema>;

export const rolloutStates = ['Complete', 'Progressing', 'Paused'] as const;

export const proxySetStatusSchema = z.strictObject({
  /** members that exist and are not being deleted */
  members: z.number(),
  ready: z.number(),
  /** members made from the current template */
  updated: z.number(),
  /** members of the current template still booting */
  updating: z.number(),
  /** members Failed, or not Ready past readyTimeout */
  failing: z.number(),
  rollout: z.strictObject({ state: z.enum(rolloutStates), updated: z.number(), replicas: z.number() }),
  conditions: z.array(proxySetConditionSchema),
  /** newest last; the last diagnoses are their firstFailure */
  replacements: z.array(proxySetReplacementSchema),
  /** members per host (by name; "" when the provider chose), for the set's hosts bar */
  hosts: z.array(z.strictObject({ host: z.string(), members: z.number(), ready: z.number() })),
  /** the generation the controller last acted on; below `generation` while a change is pending */
  observedGeneration: z.number().optional(),
});
export type ProxySetStatusView = z.infer<typeof proxySetStatusSchema>;

export const proxySetViewSchema = z.strictObject({
  uid: z.string(),
  name: z.string(),
  template: z.strictObject({
    provider: z.string(),
    placement: z.strictObject({ region: z.string().optional(), machineType: z.string(), image: z.string() }),
    port: z.number(),
    labels: z.record(z.string(), z.string()),
    cloudInit: z.strictObject({ bytes: z.number() }),
  }),
  /** the spec hash of a member made from the template (zone aside) */
  templateHash: z.string(),
  replicas: z.number(),
  readyTimeout: z.string(),
  /** `max` resolved: the set's replicas when not given */
  replacementBudget: z.strictObject({ max: z.number(), window: z.string() }),
  hostDownGrace: z.string(),
  maxSurge: z.number(),
  maxUnavailable: z.number(),
  paused: z.boolean(),
  generation: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
  deletionRequestedAt: z.string().optional(),
  status: proxySetStatusSchema,
});
export type ProxySetView = z.infer<typeof proxySetViewSchema>;

export const proxySetListSchema = collection('proxysets', proxySetViewSchema);
export type ProxySetList = z.infer<typeof proxySetListSchema>;

/** POST /api/proxysets/preview: where a set's members would go now (the controller's own choice), creating nothing. */
export const proxySetPreviewSchema = z.strictObject({
  provider: z.string(),
  replicas: z.number(),
  /** every host in automatic placement's order with the members it would get; host "" when the provider chooses */
  hosts: z.array(z.strictObject({ host: z.string(), members: z.number(), eligible: z.boolean(), reason: z.string().optional() })),
  /** members no host has room for now (they would wait) */
  unplaced: z.number(),
});
export type ProxySetPreview = z.infer<typeof proxySetPreviewSchema>;

export const proxySetChanges = ['none', 'settings', 'labels', 'template'] as const;

/** POST /api/proxysets/{name}/plan: what a PUT with the same body would do, changing nothing. */
export const proxySetPlanSchema = z.strictObject({
  /** none; settings only (replicas, limits, pause); labels (members relabelled in place); template (members replaced, rolling) */
  change: z.enum(proxySetChanges),
  /** members whose VM would be replaced */
  replaced: z.number(),
  message: z.string(),
});
export type ProxySetPlan = z.infer<typeof proxySetPlanSchema>;
