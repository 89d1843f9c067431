// Proxy records. Three writers never overwrite each other: the API writes the spec and the
// deletion request, the reconciler writes `status`, the prober writes `probe`, each its own column.
// Every method is one statement or one transaction, committed when it returns.
import type { Database } from 'better-sqlite3';
import type { ChosenPlacement } from '@/lib/api/proxies';
import type { Condition, ErrorClassName, ProxySpec } from '@/lib/proxy-spec';
import { ProxyExistsError } from './errors';

/** What the reconciler records; `Ready` is never stored (it is Running plus a healthy probe). */
export type StoredPhase = 'Pending' | 'Provisioning' | 'Running' | 'Failed' | 'Deleting';

export interface ReconcileStatus {
  phase: StoredPhase;
  ip?: string;
  providerID?: string;
  /**
   * The spec hash of the instance that exists, or may exist: recorded before Create is called, so
   * after a crash mid-Create a changed spec still finds (by uid) and removes what that call made.
   */
  instanceSpecHash?: string;
  /** the spec hash this status was computed for; with phase Failed it is the latch */
  observedSpecHash?: string;
  /** with phase Failed: the providers config it failed under; a new config releases the latch too */
  failedUnderConfig?: string;
  /** the Provisioned condition (Healthy lives in the probe column) */
  conditions: Condition[];
  lastError?: { class: ErrorClassName; message: string; at: string };
  /** the host automatic placement chose; later passes, restarts and replacements keep it */
  chosenPlacement?: ChosenPlacement;
}

export interface ProbeStatus {
  /** `ip:port` probed; a result for another address no longer applies */
  target: string;
  healthy: boolean;
  condition: Condition;
  latencyMs?: number;
  egressIP?: string;
  probedAt: string;
}

export interface ProxyRecord {
  uid: string;
  name: string;
  spec: ProxySpec;
  status: ReconcileStatus;
  probe?: ProbeStatus;
  generation: number;
  createdAt: string;
  updatedAt: string;
  deletionRequestedAt?: string;
}

interface ProxyRow {
  uid: string;
  name: string;
  spec: string;
  status: string;
  probe: string | null;
  generation: number;
  created_at: string;
  updated_at: string;
  deletion_requested_at: string | null;
}

export const initialStatus = (): ReconcileStatus => ({ phase: 'Pending', conditions: [] });

function fromRow(row: ProxyRow): ProxyRecord {
  return {
    uid: row.uid,
    name: row.name,
    spec: JSON.parse(row.spec) as ProxySpec,
    status: JSON.parse(row.status) as ReconcileStatus,
    ...(row.probe ? { probe: JSON.parse(row.probe) as ProbeStatus } : {}),
    generation: row.generation,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.deletion_requested_at ? { deletionRequestedAt: row.deletion_requested_at } : {}),
  };
}

const isUniqueViolation = (err: unknown): boolean =>
  (err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' || (err as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY';

/** Told the name of every Proxy whose record was written or removed (after the write, inside any transaction). */
export type ProxyWriteListener = (name: string) => void;

export class ProxyStore {
  private readonly listeners = new Set<ProxyWriteListener>();

  constructor(private readonly db: Database) {}

  /** Calls `listener` after every write; the returned function stops it. */
  watch(listener: ProxyWriteListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private written(name: string | undefined): void {
    if (name === undefined) return;
    for (const listener of this.listeners) listener(name);
  }

  private nameOf(uid: string): string | undefined {
    return this.db.prepare(`SELECT name FROM proxies WHERE uid = ?`).pluck().get(uid) as string | undefined;
  }

  /** `changed` after a write by uid that touched a row: the listeners hear of it. */
  private afterWrite(uid: string, changed: boolean): boolean {
    if (changed && this.listeners.size > 0) this.written(this.nameOf(uid));
    return changed;
  }

  insert(options: { uid: string; name: string; spec: ProxySpec; now: string }): ProxyRecord {
    try {
      this.db
        .prepare(`INSERT INTO proxies (uid, name, spec, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`)
        .run(options.uid, options.name, JSON.stringify(options.spec), JSON.stringify(initialStatus()), options.now, options.now);
    } catch (err) {
      if (isUniqueViolation(err)) throw new ProxyExistsError(options.name, { cause: err });
      throw err;
    }
    this.written(options.name);
    return this.get(options.name) as ProxyRecord;
  }

  get(name: string): ProxyRecord | undefined {
    const row = this.db.prepare(`SELECT * FROM proxies WHERE name = ?`).get(name) as ProxyRow | undefined;
    return row ? fromRow(row) : undefined;
  }

  list(): ProxyRecord[] {
    return (this.db.prepare(`SELECT * FROM proxies ORDER BY name`).all() as ProxyRow[]).map(fromRow);
  }

  names(): string[] {
    return this.db.prepare(`SELECT name FROM proxies ORDER BY name`).pluck().all() as string[];
  }

  /** Every Proxy's uid, deleting ones included: GC must spare their instances. */
  uids(): Set<string> {
    return new Set(this.db.prepare(`SELECT uid FROM proxies`).pluck().all() as string[]);
  }

  /** Replaces the spec and bumps the generation; false when the record is gone. */
  updateSpec(options: { uid: string; spec: ProxySpec; now: string }): boolean {
    const result = this.db
      .prepare(`UPDATE proxies SET spec = ?, generation = generation + 1, updated_at = ? WHERE uid = ?`)
      .run(JSON.stringify(options.spec), options.now, options.uid);
    return this.afterWrite(options.uid, result.changes === 1);
  }

  /** Records the deletion request once; the reconciler removes the record when the instance is gone. */
  requestDeletion(options: { uid: string; now: string }): boolean {
    const result = this.db
      .prepare(`UPDATE proxies SET deletion_requested_at = COALESCE(deletion_requested_at, ?), updated_at = ? WHERE uid = ?`)
      .run(options.now, options.now, options.uid);
    return this.afterWrite(options.uid, result.changes === 1);
  }

  writeStatus(uid: string, status: ReconcileStatus): boolean {
    return this.afterWrite(uid, this.db.prepare(`UPDATE proxies SET status = ? WHERE uid = ?`).run(JSON.stringify(status), uid).changes === 1);
  }

  writeProbe(uid: string, probe: ProbeStatus): boolean {
    return this.afterWrite(uid, this.db.prepare(`UPDATE proxies SET probe = ? WHERE uid = ?`).run(JSON.stringify(probe), uid).changes === 1);
  }

  /** Removes the record and its events in one transaction. */
  remove(uid: string): void {
    const name = this.nameOf(uid);
    this.db.transaction(() => {
      this.db.prepare(`DELETE FROM proxy_events WHERE proxy_uid = ?`).run(uid);
      this.db.prepare(`DELETE FROM probe_history WHERE proxy_uid = ?`).run(uid);
      this.db.prepare(`DELETE FROM proxies WHERE uid = ?`).run(uid);
    })();
    this.written(name);
  }
}
