// Thinning old history rows: past a cut-off, keep the first row of each (series, time bucket),
// so a week of history stays small while the last day keeps every sample.
import type { SqlExecutor } from './sql';

export interface DownsampleOptions {
  table: 'probe_history' | 'provider_health_history';
  /** the columns that name one series, e.g. `proxy_uid` */
  series: readonly string[];
  /** the epoch-ms column */
  time: string;
  /** rows older than this are thinned */
  beforeMs: number;
  bucketMs: number;
}

/** Deletes every row older than `beforeMs` but the first of its (series, bucket); returns how many. */
export async function downsample(db: SqlExecutor, options: DownsampleOptions): Promise<number> {
  const { table, series, time, bucketMs } = options;
  const group = [...series, `${time} / ${Math.max(1, Math.floor(bucketMs))}`].join(', ');
  const result = await db.run(`DELETE FROM ${table} WHERE ${time} < ? AND id NOT IN (SELECT MIN(id) FROM ${table} WHERE ${time} < ? GROUP BY ${group})`, [
    options.beforeMs,
    options.beforeMs,
  ]);
  return result.changes;
}
