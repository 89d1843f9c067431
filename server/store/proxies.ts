// Proxy records. Three writers never overwrite each other: the API writes the spec and the
// deletion request, the reconciler writes `status`, the prober writes `probe`, each its own column.
// Every method is one statement or one transaction, committed when it returns.
import type { ChosenPlacement } from '@/lib/api/proxies';
import type { Condition, ErrorClassName, ProxySpec } from '@/lib/proxy-spec';
import { ProxyExistsError } from './errors';
import { instanceName } from './instance-name';
import type { SqlExecutor } from './sql';

/** What the reconciler records; `Ready` is never stored (it is Running plus a healthy probe). */
export type StoredPhase = 'Pending' | 'Provisioning' | 'Running' | 'Failed' | 'Deleting';

export interface ReconcileStatus {
  phase: StoredPhase;
  ip?: string;
  providerID?: string;
  /** the host the instance is on, as the provider reported it with the instance (`Instance.host`) */
  host?: string;
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

/** SQLite's and PostgreSQL's (23505) unique-constraint codes. */
const uniqueViolationCodes = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY', '23505']);
const isUniqueViolation = (err: unknown): boolean => uniqueViolationCodes.has((err as { code?: string }).code ?? '');

/** Told the name of every Proxy whose record was written or removed (after the write is committed). */
export type ProxyWriteListener = (name: string) => void;

/** The listeners of one store's Proxy writes. */
export class ProxyWrites {
  private readonly listeners = new Set<ProxyWriteListener>();

  watch(listener: ProxyWriteListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(name: string): void {
    for (const listener of this.listeners) listener(name);
  }
}

/** The Proxies an instance name may belong to: those with that name in the index, and rows not named yet. */
export const byInstanceNameSql = `SELECT * FROM proxies WHERE instance_name = ? OR instance_name IS NULL ORDER BY name`;

export class ProxyStore {
  constructor(
    private readonly db: SqlExecutor,
    private readonly writes = new ProxyWrites(),
    /** how a write is told; inside a transaction the store collects them until the commit */
    private readonly written: ProxyWriteListener = (name) => writes.emit(name),
  ) {}

  /** Calls `listener` after every write; the returned function stops it. */
  watch(listener: ProxyWriteListener): () => void {
    return this.writes.watch(listener);
  }

  private async nameOf(uid: string): Promise<string | undefined> {
    return (await this.db.get<{ name: string }>(`SELECT name FROM proxies WHERE uid = ?`, [uid]))?.name;
  }

  /** `changed` after a write by uid that touched a row: the listener hears of it. */
  private async afterWrite(uid: string, changed: boolean): Promise<boolean> {
    const name = changed ? await this.nameOf(uid) : undefined;
    if (name !== undefined) this.written(name);
    return changed;
  }

  async insert(options: { uid: string; name: string; spec: ProxySpec; now: string }): Promise<ProxyRecord> {
    try {
      await this.db.run(`INSERT INTO proxies (uid, name, instance_name, spec, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`, [
        options.uid,
        options.name,
        instanceName(options.name),
        JSON.stringify(options.spec),
        JSON.stringify(initialStatus()),
        options.now,
        options.now,
      ]);
    } catch (err) {
      if (isUniqueViolation(err)) throw new ProxyExistsError(options.name, { cause: err });
      throw err;
    }
    this.written(options.name);
    return (await this.get(options.name)) as ProxyRecord;
  }

  async get(name: string): Promise<ProxyRecord | undefined> {
    const row = await this.db.get<ProxyRow>(`SELECT * FROM proxies WHERE name = ?`, [name]);
    return row ? fromRow(row) : undefined;
  }

  async list(): Promise<ProxyRecord[]> {
    return (await this.db.all<ProxyRow>(`SELECT * FROM proxies ORDER BY name`)).map(fromRow);
  }

  /**
   * The Proxies whose instance is named `instance` (by the proxies_by_instance_name index; more
   * than one only if two names' hashes meet). Rows from before the index are named here, once.
   */
  async byInstanceName(instance: string): Promise<ProxyRecord[]> {
    const rows = await this.db.all<ProxyRow & { instance_name: string | null }>(byInstanceNameSql, [instance]);
    const found: ProxyRecord[] = [];
    for (const { instance_name: indexed, ...row } of rows) {
      const named = indexed ?? instanceName(row.name);
      // Not a write anyone is told of: the record's view does not change.
      if (indexed === null) await this.db.run(`UPDATE proxies SET instance_name = ? WHERE uid = ? AND instance_name IS NULL`, [named, row.uid]);
      if (named === instance) found.push(fromRow(row));
    }
    return found;
  }

  async names(): Promise<string[]> {
    return (await this.db.all<{ name: string }>(`SELECT name FROM proxies ORDER BY name`)).map((row) => row.name);
  }

  /** Every Proxy's uid, deleting ones included: GC must spare their instances. */
  async uids(): Promise<Set<string>> {
    return new Set((await this.db.all<{ uid: string }>(`SELECT uid FROM proxies`)).map((row) => row.uid));
  }

  /** Replaces the spec and bumps the generation; false when the record is gone. */
  async updateSpec(options: { uid: string; spec: ProxySpec; now: string }): Promise<boolean> {
    const result = await this.db.run(`UPDATE proxies SET spec = ?, generation = generation + 1, updated_at = ? WHERE uid = ?`, [
      JSON.stringify(options.spec),
      options.now,
      options.uid,
    ]);
    return this.afterWrite(options.uid, result.changes === 1);
  }

  /** Records the deletion request once; the reconciler removes the record when the instance is gone. */
  async requestDeletion(options: { uid: string; now: string }): Promise<boolean> {
    const result = await this.db.run(`UPDATE proxies SET deletion_requested_at = COALESCE(deletion_requested_at, ?), updated_at = ? WHERE uid = ?`, [
      options.now,
      options.now,
      options.uid,
    ]);
    return this.afterWrite(options.uid, result.changes === 1);
  }

  async writeStatus(uid: string, status: ReconcileStatus): Promise<boolean> {
    return this.afterWrite(uid, (await this.db.run(`UPDATE proxies SET status = ? WHERE uid = ?`, [JSON.stringify(status), uid])).changes === 1);
  }

  async writeProbe(uid: string, probe: ProbeStatus): Promise<boolean> {
    return this.afterWrite(uid, (await this.db.run(`UPDATE proxies SET probe = ? WHERE uid = ?`, [JSON.stringify(probe), uid])).changes === 1);
  }

  /** Removes the record and its events in one transaction. */
  async remove(uid: string): Promise<void> {
    const name = await this.nameOf(uid);
    await this.db.transaction(async (tx) => {
      await tx.run(`DELETE FROM proxy_events WHERE proxy_uid = ?`, [uid]);
      await tx.run(`DELETE FROM probe_history WHERE proxy_uid = ?`, [uid]);
      await tx.run(`DELETE FROM proxies WHERE uid = ?`, [uid]);
    });
    if (name !== undefined) this.written(name);
  }
}
