// Events per Proxy: phase changes and reconcile errors with their class and message. A repeat of
// the newest event (same type, reason, message) bumps its count instead of adding a row, so a
// Proxy retrying the same error for a day stays one line; each Proxy keeps its newest
// `maxPerProxy` events and everything older than the retention is pruned.
import type { ProxyEventView } from '@/lib/proxy-spec';
import type { SqlExecutor } from './sql';

export interface EventInput {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

interface EventRow {
  id: number;
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  count: number;
  first_at: number;
  last_at: number;
}

const toView = (row: EventRow): ProxyEventView => ({
  id: row.id,
  type: row.type,
  reason: row.reason,
  message: row.message,
  count: row.count,
  firstAt: new Date(row.first_at).toISOString(),
  lastAt: new Date(row.last_at).toISOString(),
});

export class EventStore {
  constructor(
    private readonly db: SqlExecutor,
    private readonly maxPerProxy = 200,
  ) {}

  /** Records `event` for the Proxy `uid`, at `atMs` (epoch ms). */
  async record(uid: string, event: EventInput & { atMs: number }): Promise<void> {
    const nowMs = event.atMs;
    await this.db.transaction(async (tx) => {
      const newest = await tx.get<EventRow>(`SELECT * FROM proxy_events WHERE proxy_uid = ? ORDER BY id DESC LIMIT 1`, [uid]);
      if (newest && newest.type === event.type && newest.reason === event.reason && newest.message === event.message) {
        await tx.run(`UPDATE proxy_events SET count = count + 1, last_at = ? WHERE id = ?`, [nowMs, newest.id]);
        return;
      }
      await tx.run(`INSERT INTO proxy_events (proxy_uid, type, reason, message, first_at, last_at) VALUES (?, ?, ?, ?, ?, ?)`, [
        uid,
        event.type,
        event.reason,
        event.message,
        nowMs,
        nowMs,
      ]);
      await tx.run(
        `DELETE FROM proxy_events WHERE proxy_uid = ? AND id NOT IN
           (SELECT id FROM proxy_events WHERE proxy_uid = ? ORDER BY id DESC LIMIT ?)`,
        [uid, uid, this.maxPerProxy],
      );
    });
  }

  /** Newest first. */
  async list(uid: string, limit = 100): Promise<ProxyEventView[]> {
    const rows = await this.db.all<EventRow>(`SELECT * FROM proxy_events WHERE proxy_uid = ? ORDER BY id DESC LIMIT ?`, [uid, limit]);
    return rows.map(toView);
  }

  /** Drops events whose last occurrence is older than `beforeMs`; returns how many. */
  async pruneBefore(beforeMs: number): Promise<number> {
    return (await this.db.run(`DELETE FROM proxy_events WHERE last_at < ?`, [beforeMs])).changes;
  }
}
