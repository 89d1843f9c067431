// Provider health: the latest result per (provider, target), in the provider's target order, and
// a history row for every check for the dashboard's charts, pruned after the retention period and
// thinned past a day.
import type { Database } from 'better-sqlite3';
import type { Target } from '@/server/providers/contract';
import { downsample } from './downsample';

export interface ProviderHealth {
  provider: string;
  targets: Target[];
}

export interface HealthSample {
  target: string;
  ready: boolean;
  reason: string;
  latencyMs: number;
  checkedAt: string;
  /** the pool's free space at that check, for the free-space chart; absent when unknown */
  poolAvailableGiB?: number;
}

interface TargetRow {
  provider: string;
  target: string;
  ready: number;
  reason: string;
  message: string;
  details: string;
  latency_ms: number;
  checked_at: number;
}

const toTarget = (row: TargetRow): Target => ({
  name: row.target,
  ready: row.ready === 1,
  reason: row.reason,
  message: row.message,
  details: JSON.parse(row.details) as Record<string, string>,
  latencyMs: row.latency_ms,
  checkedAt: new Date(row.checked_at).toISOString(),
});

function checkedAtMs(target: Target, fallbackMs: number): number {
  const parsed = Date.parse(target.checkedAt);
  return Number.isFinite(parsed) ? parsed : fallbackMs;
}

export class ProviderHealthStore {
  constructor(private readonly db: Database) {}

  /** Replaces the provider's latest results with `targets` and appends them to the history. */
  record(options: { provider: string; targets: readonly Target[]; nowMs: number }): void {
    const { provider, targets, nowMs } = options;
    this.db.transaction(() => {
      this.db.prepare(`DELETE FROM provider_health WHERE provider = ?`).run(provider);
      const latest = this.db.prepare(
        `INSERT INTO provider_health (provider, target, position, ready, reason, message, details, latency_ms, checked_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      const history = this.db.prepare(
        `INSERT INTO provider_health_history (provider, target, ready, reason, message, details, latency_ms, checked_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      targets.forEach((target, position) => {
        const values = [target.ready ? 1 : 0, target.reason, target.message, JSON.stringify(target.details), target.latencyMs, checkedAtMs(target, nowMs)];
        latest.run(provider, target.name, position, ...values);
        history.run(provider, target.name, ...values);
      });
    })();
  }

  /** Latest results per provider (all providers when `provider` is omitted). */
  latest(provider?: string): ProviderHealth[] {
    const rows = (
      provider === undefined
        ? this.db.prepare(`SELECT * FROM provider_health ORDER BY provider, position`).all()
        : this.db.prepare(`SELECT * FROM provider_health WHERE provider = ? ORDER BY position`).all(provider)
    ) as TargetRow[];
    const byProvider = new Map<string, Target[]>();
    for (const row of rows) {
      const list = byProvider.get(row.provider) ?? [];
      list.push(toTarget(row));
      byProvider.set(row.provider, list);
    }
    return [...byProvider].map(([name, targets]) => ({ provider: name, targets }));
  }

  /** Every check of `provider` since `sinceMs`, oldest first. */
  history(options: { provider: string; sinceMs: number; target?: string }): HealthSample[] {
    const rows = (
      options.target === undefined
        ? this.db
            .prepare(`SELECT * FROM provider_health_history WHERE provider = ? AND checked_at >= ? ORDER BY checked_at, id`)
            .all(options.provider, options.sinceMs)
        : this.db
            .prepare(`SELECT * FROM provider_health_history WHERE provider = ? AND target = ? AND checked_at >= ? ORDER BY checked_at, id`)
            .all(options.provider, options.target, options.sinceMs)
    ) as TargetRow[];
    return rows.map((row) => {
      const poolAvailableGiB = Number((JSON.parse(row.details) as Record<string, string>).poolAvailableGiB);
      return {
        target: row.target,
        ready: row.ready === 1,
        reason: row.reason,
        latencyMs: row.latency_ms,
        checkedAt: new Date(row.checked_at).toISOString(),
        ...(Number.isFinite(poolAvailableGiB) ? { poolAvailableGiB } : {}),
      };
    });
  }

  /** Drops history older than `beforeMs`; returns how many rows. */
  pruneBefore(beforeMs: number): number {
    return this.db.prepare(`DELETE FROM provider_health_history WHERE checked_at < ?`).run(beforeMs).changes;
  }

  /** Keeps one check per target and `bucketMs` before `beforeMs`; returns how many went. */
  downsampleBefore(beforeMs: number, bucketMs: number): number {
    return downsample(this.db, { table: 'provider_health_history', series: ['provider', 'target'], time: 'checked_at', beforeMs, bucketMs });
  }
}
