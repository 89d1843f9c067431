// Events per Proxy: phase changes and reconcile errors with their class and message. A repeat of
// the newest event (same type, reason, message) bumps its count instead of adding a row, so a
// Proxy retrying the same error for a day stays one line; each Proxy keeps its newest
// `maxPerProxy` events and everything older than the retention is pruned.
import type { Database } from 'better-sqlite3';
import type { ProxyEventView } from '@/lib/proxy-spec';

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
    private readonly db: Database,
    private readonly maxPerProxy = 200,
  ) {}

  /** Records `event` for the Proxy `uid`, at `atMs` (epoch ms). */
  record(uid: string, event: EventInput & { atMs: number }): void {
    const nowMs = event.atMs;
    this.db.transaction(() => {
      const newest = this.db
        .prepare(`SELECT * FROM proxy_events WHERE proxy_uid = ? ORDER BY id DESC LIMIT 1`)
        .get(uid) as EventRow | undefined;
      if (newest && newest.type === event.type && newest.reason === event.reason && newest.message === event.message) {
        this.db.prepare(`UPDATE proxy_events SET count = count + 1, last_at = ? WHERE id = ?`).run(nowMs, newest.id);
        return;
      }
      this.db
        .prepare(`INSERT INTO proxy_events (proxy_uid, type, reason, message, first_at, last_at) VALUES (?, ?, ?, ?, ?, ?)`)
        .run(uid, event.type, event.reason, event.message, nowMs, nowMs);
      this.db
        .prepare(
          `DELETE FROM proxy_events WHERE proxy_uid = ? AND id NOT IN
             (SELECT id FROM proxy_events WHERE proxy_uid = ? ORDER BY id DESC LIMIT ?)`,
        )
        .run(uid, uid, this.maxPerProxy);
    })();
  }

  /** Newest first. */
  list(uid: string, limit = 100): ProxyEventView[] {
    const rows = this.db
      .prepare(`SELECT * FROM proxy_events WHERE proxy_uid = ? ORDER BY id DESC LIMIT ?`)
      .all(uid, limit) as EventRow[];
    return rows.map(toView);
  }

  /** Drops events whose last occurrence is older than `beforeMs`; returns how many. */
  pruneBefore(beforeMs: number): number {
    return this.db.prepare(`DELETE FROM proxy_events WHERE last_at < ?`).run(beforeMs).changes;
  }
}
