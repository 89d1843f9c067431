// Which leadership this replica runs: with a PostgreSQL database the replicas elect a leader through
// an advisory lock; with SQLite there is one replica, and it leads from its start.
import { AdvisoryLockLeadership } from '@/server/cluster/advisory-lock';
import { type Leadership, type Replica, SingleReplica } from '@/server/cluster/leadership';
import type { Clock } from '@/server/control/clock';
import type { RuntimeSettings } from '@/server/control/settings';
import type { Store } from '@/server/store';
import type { Logger } from '@/server/telemetry/logger';

export interface LeadershipChoice {
  settings: RuntimeSettings;
  store: Store;
  replica: Replica;
  clock: Clock;
  logger: Logger;
  /** a Proxy changed on some replica (told only while this one leads) */
  onProxyChanged(name: string): void;
}

export function chooseLeadership(options: LeadershipChoice): Leadership {
  const { settings, store, replica, clock, logger, onProxyChanged } = options;
  if (!settings.databaseUrl) return new SingleReplica(() => clock.now());
  return new AdvisoryLockLeadership({
    databaseUrl: settings.databaseUrl,
    sql: store.sql,
    replica,
    heartbeatMs: settings.leaderHeartbeatMs,
    leaseMs: settings.leaderLeaseMs,
    logger: logger.child({ component: 'leadership' }),
    onProxyChanged,
  });
}
