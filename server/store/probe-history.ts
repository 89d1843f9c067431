// Probe history: a row for every probe of a Proxy through itself, for the dashboard's latency
// chart; pruned after the retention period and thinned past a day (housekeeping).
import { downsample } from './downsample';
import type { SqlExecutor } from './sql';

export interface ProbeSample {
  probedAt: string;
  healthy: boolean;
  latencyMs: number;
}

interface ProbeRow {
  healthy: number;
  latency_ms: number;
  probed_at: number;
}

export class ProbeHistoryStore {
  constructor(private readonly db: SqlExecutor) {}

  async record(options: { proxyUid: string; target: string; healthy: boolean; latencyMs: number; probedAtMs: number }): Promise<void> {
    await this.db.run(`INSERT INTO probe_history (proxy_uid, target, healthy, latency_ms, probed_at) VALUES (?, ?, ?, ?, ?)`, [
      options.proxyUid,
      options.target,
      options.healthy ? 1 : 0,
      options.latencyMs,
      options.probedAtMs,
    ]);
  }

  /** Every probe of the Proxy since `sinceMs`, oldest first. */
  async history(options: { proxyUid: string; sinceMs: number }): Promise<ProbeSample[]> {
    const rows = await this.db.all<ProbeRow>(
      `SELECT healthy, latency_ms, probed_at FROM probe_history WHERE proxy_uid = ? AND probed_at >= ? ORDER BY probed_at, id`,
      [options.proxyUid, options.sinceMs],
    );
    return rows.map((row) => ({ probedAt: new Date(row.probed_at).toISOString(), healthy: row.healthy === 1, latencyMs: row.latency_ms }));
  }

  /** Drops probes older than `beforeMs`; returns how many. */
  async pruneBefore(beforeMs: number): Promise<number> {
    return (await this.db.run(`DELETE FROM probe_history WHERE probed_at < ?`, [beforeMs])).changes;
  }

  /** Keeps one probe per Proxy and `bucketMs` before `beforeMs`; returns how many went. */
  downsampleBefore(beforeMs: number, bucketMs: number): Promise<number> {
    return downsample(this.db, { table: 'probe_history', series: ['proxy_uid'], time: 'probed_at', beforeMs, bucketMs });
  }
}
