// The messages of GET /api/events (Server-Sent Events): each event's `data` is one JSON object
// whose `kind` says what changed. `proxy` and `health` carry the new value (the browser writes it
// into its cache), `domain` the instance's new state (the browser writes it into that row of the
// host listing); `stats`, `proxyset` and `gateway` only say what to refetch. `ready` opens every connection
// and `reset` says the changes since the client's Last-Event-ID are gone: refetch everything.
import { z } from 'zod';
import { targetSchema } from './providers';
import { proxyViewSchema } from './proxies';

/** A Proxy's record changed (spec, status, probe): its new view, or null once it is removed. */
export const proxyMessageSchema = z.strictObject({ kind: z.literal('proxy'), name: z.string(), proxy: proxyViewSchema.nullable() });

/** A provider's health check finished: the latest result per target. */
export const healthMessageSchema = z.strictObject({ kind: z.literal('health'), provider: z.string(), targets: z.array(targetSchema) });

/** The hypervisor reported an instance's lifecycle change (kvm2: a libvirt domain event). */
export const domainMessageSchema = z.strictObject({
  kind: z.literal('domain'),
  provider: z.string(),
  /** the host it is on */
  target: z.string(),
  /** the instance (domain) name */
  name: z.string(),
  providerID: z.string(),
  /** in the provider's words, e.g. `Stopped/Destroyed`, `Suspended/Paused`, `Resumed/Unpaused` */
  event: z.string(),
  /** the Managed Proxy owning the instance, when one does */
  proxy: z.string().optional(),
  /** the instance's state after the change, in the host listing's words (a domain row's `state`); absent when it could not be read */
  state: z.string().optional(),
  /** the instance is gone from its host (kvm2: undefined) */
  removed: z.literal(true).optional(),
});

/** New stats samples were stored for a host (and, when given, one Proxy's VM on it). */
export const statsMessageSchema = z.strictObject({ kind: z.literal('stats'), provider: z.string(), host: z.string(), proxy: z.string().optional() });

/** A ProxySet changed (spec, status, removal): refetch it and the list of sets. */
export const proxySetMessageSchema = z.strictObject({ kind: z.literal('proxyset'), name: z.string() });

/** The gateway's traffic moved (at most once a second while it does): refetch GET /api/gateway. */
export const gatewayMessageSchema = z.strictObject({ kind: z.literal('gateway') });

/** First on every connection: the stream is live; `resumed` when the missed changes were replayed before it. */
export const readyMessageSchema = z.strictObject({ kind: z.literal('ready'), resumed: z.boolean() });

/** The changes since the client's Last-Event-ID are no longer kept (or the server restarted): refetch everything. */
export const resetMessageSchema = z.strictObject({ kind: z.literal('reset'), reason: z.enum(['expired', 'unknown']) });

export const liveMessageSchema = z.discriminatedUnion('kind', [
  proxyMessageSchema,
  healthMessageSchema,
  domainMessageSchema,
  statsMessageSchema,
  proxySetMessageSchema,
  gatewayMessageSchema,
  readyMessageSchema,
  resetMessageSchema,
]);
export type LiveMessage = z.infer<typeof liveMessageSchema>;
export type LiveMessageKind = LiveMessage['kind'];
/** What the server publishes (the other two are per connection). */
export type LiveChange = Exclude<LiveMessage, { kind: 'ready' | 'reset' }>;

/** The heartbeat comment's period: proxies and browsers see traffic at least this often. */
export const liveHeartbeatMs = 15_000;
