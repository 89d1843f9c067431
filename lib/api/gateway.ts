// What GET /api/gateway answers: where crawlers connect and the gateway's traffic: per Proxy and
// per gateway token summed over every replica serving the gateway (through the store, each replica
// flushing every 5 s; the replica answering counts its own live), and in the replica answering,
// the busiest sticky sessions and the last refusals.
// Direction: `bytesIn` came from the Proxy towards the crawler, `bytesOut` went the other way.
import { z } from 'zod';

const trafficFields = {
  bytesIn: z.number(),
  bytesOut: z.number(),
  /** connections open now (of replicas alive; sessions: in the replica answering) */
  open: z.number(),
  /** connections ever made (sessions: since the replica answering started) */
  tunnels: z.number(),
};

export const gatewayProxyTrafficSchema = z.strictObject({
  proxy: z.string(),
  ...trafficFields,
  /** closed connections by failure cause */
  failures: z.record(z.string(), z.number()),
});
export type GatewayProxyTraffic = z.infer<typeof gatewayProxyTrafficSchema>;

export const gatewayTokenTrafficSchema = z.strictObject({
  /** the gateway token's id; `name` is its name in Settings (absent once revoked) */
  token: z.string(),
  name: z.string().optional(),
  ...trafficFields,
});
export type GatewayTokenTraffic = z.infer<typeof gatewayTokenTrafficSchema>;

export const gatewaySessionTrafficSchema = z.strictObject({
  session: z.string(),
  /** the Proxy the session is on now */
  proxy: z.string(),
  ...trafficFields,
});
export type GatewaySessionTraffic = z.infer<typeof gatewaySessionTrafficSchema>;

export const gatewayRefusalSchema = z.strictObject({
  /** RFC 3339 */
  at: z.string(),
  /** the crawler's address */
  client: z.string(),
  /** a short code: no-credentials, bad-token, rate-limited, username-invalid, set-unknown, proxy-unknown, proxy-not-ready, no-ready-proxy, upstream-failed */
  cause: z.string(),
  /** the sentence the crawler got in X-Gateway-Error */
  message: z.string(),
});
export type GatewayRefusal = z.infer<typeof gatewayRefusalSchema>;

export const gatewayViewSchema = z.strictObject({
  /** false when GATEWAY_PORT=0 */
  enabled: z.boolean(),
  /** false when enabled but the port could not be taken (`error` says why) */
  listening: z.boolean(),
  error: z.string().optional(),
  /** the address the gateway listens on (as configured: 0.0.0.0 means every interface) */
  host: z.string(),
  port: z.number(),
  /** how long a Proxy being deleted keeps its open tunnels */
  drainMs: z.number(),
  proxies: z.array(gatewayProxyTrafficSchema),
  tokens: z.array(gatewayTokenTrafficSchema),
  /** the busiest sticky sessions, most bytes first (at most 10) */
  sessions: z.array(gatewaySessionTrafficSchema),
  /** the last refusals, newest first (at most 20) */
  refusals: z.array(gatewayRefusalSchema),
});
export type GatewayView = z.infer<typeof gatewayViewSchema>;
