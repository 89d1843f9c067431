// The admin password's hash and the server's own secrets, in the store (migration 4). One
// admin: the password row has the fixed id 1, so first-start setup is a single INSERT that only
// the first of two racing requests wins.
import { randomBytes } from 'node:crypto';
import type { Database } from 'better-sqlite3';

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
  constructor(private readonly db: Database) {}

  password(): StoredPassword | undefined {
    const row = this.db.prepare(`SELECT hash, source, set_at FROM admin_password WHERE id = 1`).get() as PasswordRow | undefined;
    return row && { hash: row.hash, source: row.source, setAt: row.set_at };
  }

  /** Stores the first password; false when one exists already (nothing changed). */
  insertPassword(password: StoredPassword): boolean {
    const result = this.db
      .prepare(`INSERT INTO admin_password (id, hash, source, set_at) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO NOTHING`)
      .run(password.hash, password.source, password.setAt);
    return result.changes === 1;
  }

  replacePassword(password: StoredPassword): void {
    this.db
      .prepare(
        `INSERT INTO admin_password (id, hash, source, set_at) VALUES (1, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET hash = excluded.hash, source = excluded.source, set_at = excluded.set_at`,
      )
      .run(password.hash, password.source, password.setAt);
  }

  /** The secret called `name`, made (random, `bytes` long) on first use and kept from then on. */
  secret(name: string, bytes = 32): Buffer {
    this.db.prepare(`INSERT INTO auth_secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING`).run(name, randomBytes(bytes));
    return this.db.prepare(`SELECT value FROM auth_secrets WHERE name = ?`).pluck().get(name) as Buffer;
  }
}
