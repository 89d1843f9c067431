// The runtime's start and stop, each in its order. Start migrates the store, applies the admin
// password, loads the providers config and opens the gateway, then contends for leadership: the
// control loops run only while this replica leads. Stop ends the browsers' event streams first
// (they reconnect at once) and closes the store last; calling it again waits for the same stop.
import type { AuthService } from '@/server/auth/service';
import type { Leadership, Replica } from '@/server/cluster/leadership';
import type { ConfigManager } from '@/server/control/config-reload';
import type { ConsoleManager } from '@/server/control/console-manager';
import type { LiveFeed } from '@/server/control/live-feed';
import type { ProviderSet } from '@/server/control/provider-set';
import type { RuntimeSettings } from '@/server/control/settings';
import type { GatewayService } from '@/server/gateway/gateway-service';
import type { Store } from '@/server/store';
import type { Logger } from '@/server/telemetry/logger';
import { redactUrl } from '@/server/telemetry/redact-url';
import { errorMessage } from '@/lib/error-message';
import type { ControlLoops } from './control-loops';

export interface LifecycleParts {
  settings: RuntimeSettings;
  store: Store;
  replica: Replica;
  leadership: Leadership;
  auth: AuthService;
  config: ConfigManager;
  gateway: GatewayService;
  loops: ControlLoops;
  consoles: ConsoleManager;
  live: LiveFeed;
  providerSet: ProviderSet;
  /** ends the live feed's following of Proxy writes */
  stopPublishingProxies: () => void;
  logger: Logger;
}

export interface Lifecycle {
  /** true once start() has finished */
  readonly started: boolean;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function runtimeLifecycle(parts: LifecycleParts): Lifecycle {
  const { settings, store, replica, leadership, auth, config, gateway, loops, consoles, live, providerSet, logger: log } = parts;
  let started = false;
  let stopping: Promise<void> | undefined;
  return {
    get started() {
      return started;
    },
    async start() {
      if (started) return;
      await store.migrate();
      await auth.init();
      await config.reload();
      config.startWatching();
      await gateway.start();
      started = true;
      leadership.start({
        gained: () => void loops.start(),
        lost: () => {
          void loops.stop();
          // Boot capture is the leader's: let the new one hold the consoles of the VMs still booting.
          consoles
            .releaseUnwatched('released: this replica no longer leads')
            .catch((err: unknown) => log.warn({ error: errorMessage(err) }, 'releasing the boot captures failed'));
          // The changes now happen elsewhere: browsers reconnect, and poll a replica that does not lead.
          live.endStreams();
        },
      });
      log.info(
        {
          store: store.engine,
          replica: replica.id,
          dataDir: settings.dataDir,
          providers: providerSet.list().map((provider) => provider.name),
          probeUrl: settings.probeUrl ? redactUrl(settings.probeUrl) : null,
        },
        'control plane started',
      );
    },
    stop() {
      stopping ??= (async () => {
        // Open event streams end first: a browser reconnects (and falls back to polling) at once.
        live.close();
        parts.stopPublishingProxies();
        loops.detach();
        await gateway.stop();
        await config.stop();
        await leadership.stop();
        await loops.stop();
        await consoles.stop();
        for (const failure of await providerSet.close()) log.warn({ error: errorMessage(failure) }, 'closing a provider failed');
        await store.close();
        log.info('control plane stopped');
      })();
      return stopping;
    },
  };
}
