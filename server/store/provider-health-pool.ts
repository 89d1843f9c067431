// A health target's pool facts as the store keeps them: typed JSON in the `pool` column
// (migration 12). Rows written before that column existed have it NULL; their facts are read from
// the text the spec puts in `details` (`pool`, `poolState`, `poolCapacityGiB`, `poolAvailableGiB`).
// This file is the one place that text is parsed back.
import type { TargetPool } from '@/server/providers/contract';

const bytesPerGiB = 1024 ** 3;

/** The column's value for `pool`; NULL when the target has no pool. */
export const encodePool = (pool: TargetPool | undefined): string | null => (pool ? JSON.stringify(pool) : null);

/** A GiB figure as the check wrote it ("150.25") in bytes; undefined when absent or not a number. */
function bytesOf(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const gib = Number(text);
  return Number.isFinite(gib) ? Math.round(gib * bytesPerGiB) : undefined;
}

/** The pool the details of a row from before the column describe; undefined when they name none. */
export function poolFromDetails(details: Record<string, string>): TargetPool | undefined {
  if (details.pool === undefined) return undefined;
  const pool: TargetPool = { name: details.pool };
  if (details.poolState !== undefined) pool.state = details.poolState;
  const capacityBytes = bytesOf(details.poolCapacityGiB);
  if (capacityBytes !== undefined) pool.capacityBytes = capacityBytes;
  const availableBytes = bytesOf(details.poolAvailableGiB);
  if (availableBytes !== undefined) pool.availableBytes = availableBytes;
  return pool;
}

/** The row's pool: its column when written, else what its details say (old rows, and targets with no pool). */
export function decodePool(column: string | null | undefined, details: Record<string, string>): TargetPool | undefined {
  if (column === null || column === undefined) return poolFromDetails(details);
  return JSON.parse(column) as TargetPool;
}

/**
 * The free space for the charts, in GiB to two decimals as the check's text rounds it: from the
 * column when written, else from the details' text as it was always read.
 */
export function availableGiBOf(column: string | null | undefined, details: Record<string, string>): number | undefined {
  if (column === null || column === undefined) {
    const text = details.poolAvailableGiB;
    const gib = text === undefined || text.trim() === '' ? Number.NaN : Number(text);
    return Number.isFinite(gib) ? gib : undefined;
  }
  const bytes = (JSON.parse(column) as TargetPool).availableBytes;
  return bytes === undefined ? undefined : Number((bytes / bytesPerGiB).toFixed(2));
}
