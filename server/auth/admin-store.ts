// The admin password's hash and the server's own secrets, in the store (migration 4). One
// admin: the password row has the fixed id 1, so first-start setup is a single INSERT that only
// the first of two racing requests wins.
import { randomBytes } from 'node:crypto';
import type { SqlExecutor } from '@/server/store/sql';

/** Where the current password came from: first-start setup, ADMIN_PASSWORD, or a change by the admin. */
export type PasswordSource = 'setup' | 'environment' | 'change';

export interface StoredPassword {
  hash: string;
  source: PasswordSource;
  setAt: string;
}

interface PasswordRow {
  hash: string;
  source: PasswordSource;
  set_at: string;
}

export class AdminStore {
  constructor(private readonly db: SqlExecutor) {}

  async password(): Promise<StoredPassword | undefined> {
    const row = await this.db.get<PasswordRow>(`SELECT hash, source, set_at FROM admin_password WHERE id = 1`);
    return row && { hash: row.hash, source: row.source, setAt: row.set_at };
  }

  /** Stores the first password; false when one exists already (nothing changed). */
  async insertPassword(password: StoredPassword): Promise<boolean> {
    const result = await this.db.run(`INSERT INTO admin_password (id, hash, source, set_at) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO NOTHING`, [
      password.hash,
      password.source,
      password.setAt,
    ]);
    return result.changes === 1;
  }

  async replacePassword(password: StoredPassword): Promise<void> {
    await this.db.run(
      `INSERT INTO admin_password (id, hash, source, set_at) VALUES (1, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET hash = excluded.hash, source = excluded.source, set_at = excluded.set_at`,
      [password.hash, password.source, password.setAt],
    );
  }

  /** The secret called `name`, made (random, `bytes` long) on first use and kept from then on. */
  async secret(name: string, bytes = 32): Promise<Buffer> {
    await this.db.run(`INSERT INTO auth_secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING`, [name, randomBytes(bytes)]);
    const row = await this.db.get<{ value: Buffer }>(`SELECT value FROM auth_secrets WHERE name = ?`, [name]);
    return row!.value;
  }
}
