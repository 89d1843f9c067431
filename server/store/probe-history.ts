// Probe history: a row for every probe of a Proxy through itself, for the dashboard's latency
// chart; pruned after the retention period and thinned past a day (housekeeping).
import type { Database } from 'better-sqlite3';
import { downsample } from './downsample';

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
  constructor(private readonly db: Database) {}

  record(options: { proxyUid: string; target: string; healthy: boolean; latencyMs: number; probedAtMs: number }): void {
    this.db
      .prepare(`INSERT INTO probe_history (proxy_uid, target, healthy, latency_ms, probed_at) VALUES (?, ?, ?, ?, ?)`)
      .run(options.proxyUid, options.target, options.healthy ? 1 : 0, options.latencyMs, options.probedAtMs);
  }

  /** Every probe of the Proxy since `sinceMs`, oldest first. */
  history(options: { proxyUid: string; sinceMs: number }): ProbeSample[] {
    const rows = this.db
      .prepare(`SELECT healthy, latency_ms, probed_at FROM probe_history WHERE proxy_uid = ? AND probed_at >= ? ORDER BY probed_at, id`)
      .all(options.proxyUid, options.sinceMs) as ProbeRow[];
    return rows.map((row) => ({ probedAt: new Date(row.probed_at).toISOString(), healthy: row.healthy === 1, latencyMs: row.latency_ms }));
  }

  /** Drops probes older than `beforeMs`; returns how many. */
  pruneBefore(beforeMs: number): number {
    return this.db.prepare(`DELETE FROM probe_history WHERE probed_at < ?`).run(beforeMs).changes;
  }

  /** Keeps one probe per Proxy and `bucketMs` before `beforeMs`; returns how many went. */
  downsampleBefore(beforeMs: number, bucketMs: number): number {
    return downsample(this.db, { table: 'probe_history', series: ['proxy_uid'], time: 'probed_at', beforeMs, bucketMs });
  }
}
