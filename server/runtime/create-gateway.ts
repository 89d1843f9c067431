// The crawlers' gateway as the runtime wires it: the fleet it routes to comes from the Proxy service
// and the store, tokens from the auth service, the traffic counters are shared with the other
// replicas through the store, and a failed proxy asks the prober (the leader's) to look at once.
import type { AuthService } from '@/server/auth/service';
import type { Clock } from '@/server/control/clock';
import type { LiveFeed } from '@/server/control/live-feed';
import type { ProxyService } from '@/server/control/proxy-service';
import type { RuntimeSettings } from '@/server/control/settings';
import { GatewayService } from '@/server/gateway/gateway-service';
import type { Store } from '@/server/store';
import { GatewayTrafficStore } from '@/server/store/gateway-traffic';
import { type Logger, logger as childLogger } from '@/server/telemetry/logger';
import type { Metrics } from '@/server/telemetry/metrics';

export interface GatewayWiring {
  settings: RuntimeSettings;
  store: Store;
  proxies: ProxyService;
  auth: AuthService;
  live: LiveFeed;
  metrics: Metrics;
  clock: Clock;
  /** the root logger: the gateway logs under its own name */
  root: Logger;
  /** asks the prober to probe a proxy now */
  probeNow(proxy: string): void;
}

export function createGateway(options: GatewayWiring): GatewayService {
  const { settings, store, proxies, auth, live } = options;
  return new GatewayService({
    host: settings.gatewayHost,
    port: settings.gatewayPort,
    drainMs: settings.gatewayDrainMs,
    proxies: () => proxies.list(),
    setNames: async () => (await store.proxySets.list()).map((set) => set.name),
    watchProxies: (listener) => store.proxies.watch(listener),
    verifyToken: (token) => auth.gatewayTokens.verify(token),
    tokenNames: async () => new Map((await auth.gatewayTokens.list()).map((token) => [token.id, token.name])),
    // The prober runs on the leader; elsewhere the failure still keeps the proxy suspect here.
    probeNow: options.probeNow,
    metrics: options.metrics,
    logger: childLogger('gateway', options.root),
    clock: options.clock,
    // Counters summed over the replicas in the store; a replica silent past LEADER_LEASE counts no open tunnel.
    traffic: { store: new GatewayTrafficStore(store.sql), replicaId: settings.replicaId, aliveMs: settings.leaderLeaseMs },
    announce: () => live.publish({ kind: 'gateway' }),
  });
}
