// ProxySet records. Like Proxies, two writers never overwrite each other: the API writes the spec
// (bumping the generation) and the deletion request, the set controller writes `status`, each its
// own column. The members are Proxy records labelled `proxyset=<set>`; this table holds the set.
import type { ProxySetSpec } from '@/lib/api/proxyset-spec';
import type { ProxySetCondition, ProxySetReplacement } from '@/lib/api/proxysets';
import { ProxySetExistsError } from './errors';
import type { SqlExecutor } from './sql';

/** What the controller records about a set between passes. */
export interface ProxySetStatus {
  conditions: ProxySetCondition[];
  rollout?: { state: 'Complete' | 'Progressing' | 'Paused'; updated: number; replicas: number };
  /** oldest first, the newest kept (the budget window's worth and then some) */
  replacements: ProxySetReplacement[];
  /** the generation under which the budget ran out; any change by the admin (a new generation) releases it */
  exhaustedGeneration?: number;
  /** when the admin last released that stop (RFC 3339): replacements before it leave the budget */
  budgetSince?: string;
  /** members replaced elsewhere while their host was down: deleted once it is back */
  displaced: string[];
  /** host → since when (RFC 3339) its health check has said Unreachable */
  hostsDown: Record<string, string>;
  observedGeneration?: number;
}

export interface ProxySetRecord {
  uid: string;
  name: string;
  spec: ProxySetSpec;
  status: ProxySetStatus;
  generation: number;
  createdAt: string;
  updatedAt: string;
  deletionRequestedAt?: string;
}

interface ProxySetRow {
  uid: string;
  name: string;
  spec: string;
  status: string;
  generation: number;
  created_at: string;
  updated_at: string;
  deletion_requested_at: string | null;
}

export const initialSetStatus = (): ProxySetStatus => ({ conditions: [], replacements: [], displaced: [], hostsDown: {} });

function fromRow(row: ProxySetRow): ProxySetRecord {
  return {
    uid: row.uid,
    name: row.name,
    spec: JSON.parse(row.spec) as ProxySetSpec,
    status: { ...initialSetStatus(), ...(JSON.parse(row.status) as Partial<ProxySetStatus>) },
    generation: Number(row.generation),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.deletion_requested_at ? { deletionRequestedAt: row.deletion_requested_at } : {}),
  };
}

/** SQLite's and PostgreSQL's (23505) unique-constraint codes. */
const uniqueViolationCodes = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY', '23505']);

export class ProxySetStore {
  constructor(private readonly db: SqlExecutor) {}

  async insert(options: { uid: string; name: string; spec: ProxySetSpec; now: string }): Promise<ProxySetRecord> {
    try {
      await this.db.run(`INSERT INTO proxy_sets (uid, name, spec, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`, [
        options.uid,
        options.name,
        JSON.stringify(options.spec),
        JSON.stringify(initialSetStatus()),
        options.now,
        options.now,
      ]);
    } catch (err) {
      if (uniqueViolationCodes.has((err as { code?: string }).code ?? '')) throw new ProxySetExistsError(options.name, { cause: err });
      throw err;
    }
    return (await this.get(options.name)) as ProxySetRecord;
  }

  async get(name: string): Promise<ProxySetRecord | undefined> {
    const row = await this.db.get<ProxySetRow>(`SELECT * FROM proxy_sets WHERE name = ?`, [name]);
    return row ? fromRow(row) : undefined;
  }

  async list(): Promise<ProxySetRecord[]> {
    return (await this.db.all<ProxySetRow>(`SELECT * FROM proxy_sets ORDER BY name`)).map(fromRow);
  }

  /** Replaces the spec and bumps the generation; false when the record is gone. */
  async updateSpec(options: { uid: string; spec: ProxySetSpec; now: string }): Promise<boolean> {
    const result = await this.db.run(`UPDATE proxy_sets SET spec = ?, generation = generation + 1, updated_at = ? WHERE uid = ?`, [
      JSON.stringify(options.spec),
      options.now,
      options.uid,
    ]);
    return result.changes === 1;
  }

  /** Records the deletion request once; the controller removes the record when its members are gone. */
  async requestDeletion(options: { uid: string; now: string }): Promise<boolean> {
    const result = await this.db.run(`UPDATE proxy_sets SET deletion_requested_at = COALESCE(deletion_requested_at, ?), updated_at = ? WHERE uid = ?`, [
      options.now,
      options.now,
      options.uid,
    ]);
    return result.changes === 1;
  }

  async writeStatus(uid: string, status: ProxySetStatus): Promise<boolean> {
    return (await this.db.run(`UPDATE proxy_sets SET status = ? WHERE uid = ?`, [JSON.stringify(status), uid])).changes === 1;
  }

  /** Removes the set and its events (kept in the events table under the set's uid). */
  async remove(uid: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.run(`DELETE FROM proxy_events WHERE proxy_uid = ?`, [uid]);
      await tx.run(`DELETE FROM proxy_sets WHERE uid = ?`, [uid]);
    });
  }
}
