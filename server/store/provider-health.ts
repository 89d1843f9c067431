// Provider health: the latest result per (provider, target), in the provider's target order, and
// a history row for every check for the dashboard's charts, pruned after the retention period and
// thinned past a day.
import type { Target } from '@/server/providers/contract';
import { downsample } from './downsample';
import { availableGiBOf, decodePool, encodePool } from './provider-health-pool';
import type { SqlExecutor } from './sql';

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
  /** typed pool facts (JSON); NULL in rows from before migration 12 */
  pool: string | null;
  latency_ms: number;
  checked_at: number;
}

function toTarget(row: TargetRow): Target {
  const details = JSON.parse(row.details) as Record<string, string>;
  const pool = decodePool(row.pool, details);
  return {
    name: row.target,
    ready: row.ready === 1,
    reason: row.reason,
    message: row.message,
    details,
    ...(pool ? { pool } : {}),
    latencyMs: row.latency_ms,
    checkedAt: new Date(row.checked_at).toISOString(),
  };
}

function checkedAtMs(target: Target, fallbackMs: number): number {
  const parsed = Date.parse(target.checkedAt);
  return Number.isFinite(parsed) ? parsed : fallbackMs;
}

export class ProviderHealthStore {
  constructor(private readonly db: SqlExecutor) {}

  /** Replaces the provider's latest results with `targets` and appends them to the history. */
  async record(options: { provider: string; targets: readonly Target[]; nowMs: number }): Promise<void> {
    const { provider, targets, nowMs } = options;
    await this.db.transaction(async (tx) => {
      await tx.run(`DELETE FROM provider_health WHERE provider = ?`, [provider]);
      for (const [position, target] of targets.entries()) {
        const values = [
          target.ready ? 1 : 0,
          target.reason,
          target.message,
          JSON.stringify(target.details),
          encodePool(target.pool),
          target.latencyMs,
          checkedAtMs(target, nowMs),
        ];
        await tx.run(
          `INSERT INTO provider_health (provider, target, position, ready, reason, message, details, pool, latency_ms, checked_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [provider, target.name, position, ...values],
        );
        await tx.run(
          `INSERT INTO provider_health_history (provider, target, ready, reason, message, details, pool, latency_ms, checked_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [provider, target.name, ...values],
        );
      }
    });
  }

  /** Latest results per provider (all providers when `provider` is omitted). */
  async latest(provider?: string): Promise<ProviderHealth[]> {
    const rows =
      provider === undefined
        ? await this.db.all<TargetRow>(`SELECT * FROM provider_health ORDER BY provider, position`)
        : await this.db.all<TargetRow>(`SELECT * FROM provider_health WHERE provider = ? ORDER BY position`, [provider]);
    const byProvider = new Map<string, Target[]>();
    for (const row of rows) {
      const list = byProvider.get(row.provider) ?? [];
      list.push(toTarget(row));
      byProvider.set(row.provider, list);
    }
    return [...byProvider].map(([name, targets]) => ({ provider: name, targets }));
  }

  /** Every check of `provider` since `sinceMs`, oldest first. */
  async history(options: { provider: string; sinceMs: number; target?: string }): Promise<HealthSample[]> {
    const rows =
      options.target === undefined
        ? await this.db.all<TargetRow>(`SELECT * FROM provider_health_history WHERE provider = ? AND checked_at >= ? ORDER BY checked_at, id`, [
            options.provider,
            options.sinceMs,
          ])
        : await this.db.all<TargetRow>(`SELECT * FROM provider_health_history WHERE provider = ? AND target = ? AND checked_at >= ? ORDER BY checked_at, id`, [
            options.provider,
            options.target,
            options.sinceMs,
          ]);
    return rows.map((row) => {
      const poolAvailableGiB = availableGiBOf(row.pool, JSON.parse(row.details) as Record<string, string>);
      return {
        target: row.target,
        ready: row.ready === 1,
        reason: row.reason,
        latencyMs: row.latency_ms,
        checkedAt: new Date(row.checked_at).toISOString(),
        ...(poolAvailableGiB !== undefined ? { poolAvailableGiB } : {}),
      };
    });
  }

  /** Drops history older than `beforeMs`; returns how many rows. */
  async pruneBefore(beforeMs: number): Promise<number> {
    return (await this.db.run(`DELETE FROM provider_health_history WHERE checked_at < ?`, [beforeMs])).changes;
  }

  /** Keeps one check per target and `bucketMs` before `beforeMs`; returns how many went. */
  downsampleBefore(beforeMs: number, bucketMs: number): Promise<number> {
    return downsample(this.db, { table: 'provider_health_history', series: ['provider', 'target'], time: 'checked_at', beforeMs, bucketMs });
  }
}
