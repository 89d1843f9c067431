// Stats history: every query on vm_stats and host_stats (migration 6), and the consolidation of
// gateway_stats (migration 11) with them. The sampler writes one row
// per VM and per host each interval; consolidation thins them like an RRD: raw samples for an hour,
// one-minute averages for a day, ten-minute averages for seven days, nothing older. Reads average
// the rows into one point per step of the window asked for. Plain SQL (integer division for the
// buckets), the same on SQLite and PostgreSQL.
import type { SqlExecutor } from './sql';
import type { StatsWindowName } from '@/lib/api/stats';

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;

/** How long each resolution is kept: rows older than `after` are averaged into `bucketMs`. */
export const consolidationTiers = [
  { after: hour, bucketMs: minute },
  { after: day, bucketMs: 10 * minute },
] as const;
export const statsRetentionMs = 7 * day;

/** What each window of the API reads: how far back, and the step its points average over. */
export const windowSpans: Record<StatsWindowName, { spanMs: number; stepMs: number }> = {
  '1h': { spanMs: hour, stepMs: 10_000 },
  '24h': { spanMs: day, stepMs: minute },
  '7d': { spanMs: 7 * day, stepMs: 10 * minute },
};

/** One VM's values for an interval; null where there is no value (no rate after a reset). */
export interface VmValues {
  /** CPU time over wall time, in percent of one host CPU (a busy 2-vCPU guest shows 200) */
  cpuPercent: number | null;
  memoryBytes: number | null;
  memoryTotalBytes: number | null;
  netRxBps: number | null;
  netTxBps: number | null;
  diskReadBps: number | null;
  diskWriteBps: number | null;
}

export interface VmStatsRow extends VmValues {
  proxyUid: string;
  provider: string;
  target: string;
  domain: string;
  sampledAtMs: number;
  /** the time the rates cover; null when the row has no rates */
  spanMs: number | null;
}

export interface HostStatsRow {
  provider: string;
  target: string;
  sampledAtMs: number;
  cpuPercent: number | null;
  memoryUsedBytes: number;
  memoryTotalBytes: number;
}

export type VmPoint = VmValues & { atMs: number };
export type HostPoint = Omit<HostStatsRow, 'provider' | 'target' | 'sampledAtMs' | 'memoryUsedBytes' | 'memoryTotalBytes'> & {
  atMs: number;
  memoryUsedBytes: number | null;
  memoryTotalBytes: number | null;
};
export interface DomainSeries {
  domain: string;
  proxyUid: string;
  points: Array<Pick<VmPoint, 'atMs' | 'cpuPercent' | 'netRxBps' | 'netTxBps'>>;
}
export interface ProxyTraffic {
  proxyUid: string;
  rxBytes: number;
  txBytes: number;
}

const vmValueColumns = ['cpu_percent', 'memory_bytes', 'memory_total_bytes', 'net_rx_bps', 'net_tx_bps', 'disk_read_bps', 'disk_write_bps'] as const;
const hostValueColumns = ['cpu_percent', 'memory_used_bytes', 'memory_total_bytes'] as const;

interface Table {
  name: 'vm_stats' | 'host_stats' | 'gateway_stats';
  series: readonly string[];
  values: readonly string[];
  /** extra columns consolidated otherwise than by average */
  sums: readonly string[];
}

const tables: readonly Table[] = [
  { name: 'vm_stats', series: ['proxy_uid', 'provider', 'target', 'domain'], values: vmValueColumns, sums: ['span_ms'] },
  { name: 'host_stats', series: ['provider', 'target'], values: hostValueColumns, sums: [] },
  // The gateway's bytes per Proxy (gateway-stats.ts): kept as long and as finely as the VM's series.
  { name: 'gateway_stats', series: ['proxy_uid'], values: [], sums: ['bytes_in', 'bytes_out'] },
];

const bucketOf = (stepMs: number) => `(sampled_at / ${Math.max(1, Math.floor(stepMs))}) * ${Math.max(1, Math.floor(stepMs))}`;

interface VmPointRow {
  at: number;
  cpu_percent: number | null;
  memory_bytes: number | null;
  memory_total_bytes: number | null;
  net_rx_bps: number | null;
  net_tx_bps: number | null;
  disk_read_bps: number | null;
  disk_write_bps: number | null;
}

const vmPoint = (row: VmPointRow): VmPoint => ({
  atMs: row.at,
  cpuPercent: row.cpu_percent,
  memoryBytes: row.memory_bytes,
  memoryTotalBytes: row.memory_total_bytes,
  netRxBps: row.net_rx_bps,
  netTxBps: row.net_tx_bps,
  diskReadBps: row.disk_read_bps,
  diskWriteBps: row.disk_write_bps,
});

export class StatsHistoryStore {
  constructor(private readonly db: SqlExecutor) {}

  /** One sampling round: every VM row and the host row, in one transaction. */
  async record(round: { host: HostStatsRow; vms: VmStatsRow[] }): Promise<void> {
    const insertVm = `INSERT INTO vm_stats (proxy_uid, provider, target, domain, sampled_at, bucket_ms, span_ms, ${vmValueColumns.join(', ')}) VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?)`;
    const insertHost = `INSERT INTO host_stats (provider, target, sampled_at, bucket_ms, ${hostValueColumns.join(', ')}) VALUES (?, ?, ?, 0, ?, ?, ?)`;
    await this.db.transaction(async (tx) => {
      const { host } = round;
      await tx.run(insertHost, [host.provider, host.target, host.sampledAtMs, host.cpuPercent, host.memoryUsedBytes, host.memoryTotalBytes]);
      for (const vm of round.vms) {
        await tx.run(insertVm, [
          vm.proxyUid,
          vm.provider,
          vm.target,
          vm.domain,
          vm.sampledAtMs,
          vm.spanMs,
          vm.cpuPercent,
          vm.memoryBytes,
          vm.memoryTotalBytes,
          vm.netRxBps,
          vm.netTxBps,
          vm.diskReadBps,
          vm.diskWriteBps,
        ]);
      }
    });
  }

  /** A Proxy's VM over the window, one averaged point per step, oldest first. */
  async proxyHistory(options: { proxyUid: string; sinceMs: number; stepMs: number }): Promise<VmPoint[]> {
    const averages = vmValueColumns.map((column) => `AVG(${column}) AS ${column}`).join(', ');
    const rows = await this.db.all<VmPointRow>(
      `SELECT ${bucketOf(options.stepMs)} AS at, ${averages} FROM vm_stats WHERE proxy_uid = ? AND sampled_at >= ? GROUP BY at ORDER BY at`,
      [options.proxyUid, options.sinceMs],
    );
    return rows.map(vmPoint);
  }

  /** A host over the window, one averaged point per step, oldest first. */
  async hostHistory(options: { provider: string; target: string; sinceMs: number; stepMs: number }): Promise<HostPoint[]> {
    const rows = await this.db.all<{ at: number; cpu_percent: number | null; memory_used_bytes: number | null; memory_total_bytes: number | null }>(
      `SELECT ${bucketOf(options.stepMs)} AS at, AVG(cpu_percent) AS cpu_percent, AVG(memory_used_bytes) AS memory_used_bytes, AVG(memory_total_bytes) AS memory_total_bytes
         FROM host_stats WHERE provider = ? AND target = ? AND sampled_at >= ? GROUP BY at ORDER BY at`,
      [options.provider, options.target, options.sinceMs],
    );
    return rows.map((row) => ({ atMs: row.at, cpuPercent: row.cpu_percent, memoryUsedBytes: row.memory_used_bytes, memoryTotalBytes: row.memory_total_bytes }));
  }

  /** Every VM sampled on a host over the window, CPU and traffic per step, by domain name. */
  async domainHistories(options: { provider: string; target: string; sinceMs: number; stepMs: number }): Promise<DomainSeries[]> {
    const rows = await this.db.all<{
      domain: string;
      proxy_uid: string;
      at: number;
      cpu_percent: number | null;
      net_rx_bps: number | null;
      net_tx_bps: number | null;
    }>(
      `SELECT domain, proxy_uid, ${bucketOf(options.stepMs)} AS at, AVG(cpu_percent) AS cpu_percent, AVG(net_rx_bps) AS net_rx_bps, AVG(net_tx_bps) AS net_tx_bps
         FROM vm_stats WHERE provider = ? AND target = ? AND sampled_at >= ? GROUP BY domain, proxy_uid, at ORDER BY domain, at`,
      [options.provider, options.target, options.sinceMs],
    );
    const series = new Map<string, DomainSeries>();
    for (const row of rows) {
      const key = `${row.domain}\u0000${row.proxy_uid}`;
      const entry = series.get(key) ?? { domain: row.domain, proxyUid: row.proxy_uid, points: [] };
      entry.points.push({ atMs: row.at, cpuPercent: row.cpu_percent, netRxBps: row.net_rx_bps, netTxBps: row.net_tx_bps });
      series.set(key, entry);
    }
    return [...series.values()];
  }

  /** Bytes each Proxy moved since `sinceMs` (rate times the span it covers), most first. */
  async trafficByProxy(sinceMs: number): Promise<ProxyTraffic[]> {
    const rows = await this.db.all<{ proxy_uid: string; rx_bytes: number | null; tx_bytes: number | null }>(
      `SELECT proxy_uid, SUM(net_rx_bps * span_ms) / 1000.0 AS rx_bytes, SUM(net_tx_bps * span_ms) / 1000.0 AS tx_bytes
         FROM vm_stats WHERE sampled_at >= ? AND span_ms IS NOT NULL GROUP BY proxy_uid`,
      [sinceMs],
    );
    return rows
      .map((row) => ({ proxyUid: row.proxy_uid, rxBytes: row.rx_bytes ?? 0, txBytes: row.tx_bytes ?? 0 }))
      .sort((a, b) => b.rxBytes + b.txBytes - (a.rxBytes + a.txBytes));
  }

  /**
   * Every Proxy's traffic together since `sinceMs`, in bytes per second per step: each Proxy's
   * time-weighted average rate, summed. A step the samples only partly cover (the current minute)
   * reads at its true rate instead of dipping.
   */
  async totalTraffic(options: { sinceMs: number; stepMs: number }): Promise<Array<{ atMs: number; rxBps: number; txBps: number }>> {
    const rows = await this.db.all<{ at: number; rx_bps: number | null; tx_bps: number | null }>(
      `SELECT at, SUM(rx / span) AS rx_bps, SUM(tx / span) AS tx_bps FROM (
           SELECT ${bucketOf(options.stepMs)} AS at, proxy_uid, SUM(span_ms) AS span, SUM(net_rx_bps * span_ms) AS rx, SUM(net_tx_bps * span_ms) AS tx
           FROM vm_stats WHERE sampled_at >= ? AND span_ms IS NOT NULL GROUP BY at, proxy_uid
         ) AS per_proxy GROUP BY at ORDER BY at`,
      [options.sinceMs],
    );
    return rows.map((row) => ({ atMs: row.at, rxBps: row.rx_bps ?? 0, txBps: row.tx_bps ?? 0 }));
  }

  /**
   * The RRD step: drops rows past the retention, then averages each tier's rows older than its age
   * into buckets of its size (whole buckets only). Returns how many rows went.
   */
  async consolidate(nowMs: number): Promise<number> {
    let removed = 0;
    await this.db.transaction(async (tx) => {
      for (const table of tables) {
        removed += (await tx.run(`DELETE FROM ${table.name} WHERE sampled_at < ?`, [nowMs - statsRetentionMs])).changes;
        for (const tier of consolidationTiers) {
          removed += await this.consolidateTier(tx, table, {
            beforeMs: Math.floor((nowMs - tier.after) / tier.bucketMs) * tier.bucketMs,
            bucketMs: tier.bucketMs,
          });
        }
      }
    });
    return removed;
  }

  private async consolidateTier(tx: SqlExecutor, table: Table, options: { beforeMs: number; bucketMs: number }): Promise<number> {
    const { beforeMs, bucketMs } = options;
    const bucket = bucketOf(bucketMs);
    const series = table.series.join(', ');
    const columns = [...table.series, 'sampled_at', 'bucket_ms', ...table.sums, ...table.values].join(', ');
    const aggregates = [
      ...table.series,
      bucket,
      String(bucketMs),
      ...table.sums.map((column) => `SUM(${column})`),
      ...table.values.map((column) => `AVG(${column})`),
    ].join(', ');
    const finer = `sampled_at < ? AND bucket_ms < ?`;
    const before = (await tx.get<{ count: number }>(`SELECT COUNT(*) AS count FROM ${table.name} WHERE ${finer}`, [beforeMs, bucketMs]))!;
    if (before.count === 0) return 0;
    const inserted = (
      await tx.run(`INSERT INTO ${table.name} (${columns}) SELECT ${aggregates} FROM ${table.name} WHERE ${finer} GROUP BY ${series}, ${bucket}`, [
        beforeMs,
        bucketMs,
      ])
    ).changes;
    await tx.run(`DELETE FROM ${table.name} WHERE ${finer}`, [beforeMs, bucketMs]);
    return before.count - inserted;
  }
}
