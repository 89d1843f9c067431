// Gateway traffic in the stats history: every query on gateway_stats and its marks (migration 11).
// Each round the leader (server/control/gateway-history.ts) compares gateway_traffic's sums per
// Proxy, which every replica adds its flushes to (gateway-traffic.ts), with the sums it charted
// last (the marks, in the store: a new leader carries on where the last one stopped) and writes the
// growth as one row per Proxy. The sums move only by what replicas flushed (folding a replica away
// or a restart leaves them as they are), so no byte is charted twice or lost. Rows hold bytes, not
// rates: consolidation (stats-history.ts) sums them into the VM series' buckets, and a read turns
// each step's bytes into bytes per second.
import type { SqlExecutor } from './sql';

/** One step of a Proxy's gateway traffic: `in` came from the Proxy towards the crawler. */
export interface GatewayPoint {
  atMs: number;
  inBps: number;
  outBps: number;
}

interface Sums {
  name: string;
  bytes_in: number | string;
  bytes_out: number | string;
}

export class GatewayStatsStore {
  constructor(private readonly db: SqlExecutor) {}

  /** One round at `atMs`: a row per Proxy whose gateway traffic grew since the last; returns their names. */
  async record(atMs: number): Promise<string[]> {
    return this.db.transaction(async (tx) => {
      const sums = await tx.all<Sums>(
        `SELECT name, SUM(bytes_in) AS bytes_in, SUM(bytes_out) AS bytes_out FROM gateway_traffic WHERE kind = 'proxy' GROUP BY name ORDER BY name`,
      );
      const marks = new Map((await tx.all<Sums>(`SELECT name, bytes_in, bytes_out FROM gateway_stats_marks`)).map((mark) => [mark.name, mark]));
      const written: string[] = [];
      for (const sum of sums) {
        const now = { bytesIn: Number(sum.bytes_in), bytesOut: Number(sum.bytes_out) };
        const mark = marks.get(sum.name);
        const before = { bytesIn: Number(mark?.bytes_in ?? 0), bytesOut: Number(mark?.bytes_out ?? 0) };
        if (now.bytesIn === before.bytesIn && now.bytesOut === before.bytesOut) continue;
        // Moving the mark only from the value read: a second leader in the lease's overlap that
        // read the same marks changes nothing, so it writes no second row for the same bytes.
        const moved = mark
          ? await tx.run(`UPDATE gateway_stats_marks SET bytes_in = ?, bytes_out = ? WHERE name = ? AND bytes_in = ? AND bytes_out = ?`, [
              now.bytesIn,
              now.bytesOut,
              sum.name,
              before.bytesIn,
              before.bytesOut,
            ])
          : await tx.run(`INSERT INTO gateway_stats_marks (name, bytes_in, bytes_out) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING`, [
              sum.name,
              now.bytesIn,
              now.bytesOut,
            ]);
        if (moved.changes === 0) continue;
        // A sum that went down (rows deleted by hand) is a new baseline, never negative traffic.
        const grown = { bytesIn: Math.max(0, now.bytesIn - before.bytesIn), bytesOut: Math.max(0, now.bytesOut - before.bytesOut) };
        if (grown.bytesIn === 0 && grown.bytesOut === 0) continue;
        // The Proxy of that name now; a name no Proxy has any more (deleted) gets no row.
        const inserted = (
          await tx.run(
            `INSERT INTO gateway_stats (proxy_uid, sampled_at, bucket_ms, bytes_in, bytes_out) SELECT uid, CAST(? AS BIGINT), 0, CAST(? AS BIGINT), CAST(? AS BIGINT) FROM proxies WHERE name = ?`,
            [atMs, grown.bytesIn, grown.bytesOut, sum.name],
          )
        ).changes;
        if (inserted > 0) written.push(sum.name);
      }
      return written;
    });
  }

  /**
   * A Proxy's gateway traffic over the window in bytes per second, one point per complete step
   * from `sinceMs` (the step still running at `nowMs` would read low), zeros where nothing moved;
   * none at all when nothing moved in the whole window.
   */
  async proxyHistory(options: { proxyUid: string; sinceMs: number; stepMs: number; nowMs: number }): Promise<GatewayPoint[]> {
    const stepMs = Math.max(1, Math.floor(options.stepMs));
    const sinceMs = Math.floor(options.sinceMs / stepMs) * stepMs;
    const endMs = Math.floor(options.nowMs / stepMs) * stepMs;
    const rows = await this.db.all<{ at: number | string; bytes_in: number | string; bytes_out: number | string }>(
      `SELECT (sampled_at / ${stepMs}) * ${stepMs} AS at, SUM(bytes_in) AS bytes_in, SUM(bytes_out) AS bytes_out
         FROM gateway_stats WHERE proxy_uid = ? AND sampled_at >= ? AND sampled_at < ? GROUP BY at ORDER BY at`,
      [options.proxyUid, sinceMs, endMs],
    );
    if (rows.length === 0) return [];
    const perStep = new Map(rows.map((row) => [Number(row.at), row]));
    const seconds = stepMs / 1000;
    const points: GatewayPoint[] = [];
    for (let atMs = sinceMs; atMs < endMs; atMs += stepMs) {
      const row = perStep.get(atMs);
      points.push({ atMs, inBps: row ? Number(row.bytes_in) / seconds : 0, outBps: row ? Number(row.bytes_out) / seconds : 0 });
    }
    return points;
  }
}
