// The first-start setup code in the shared store, so every replica (and a restarted one) prints
// and accepts the same code. It is a row of auth_secrets (`setup-code`) holding the code and when
// it expires; replacing it is compare-and-swap on the old value, so two replicas that find it
// expired at once agree on one new code instead of each printing its own.
import type { SqlExecutor } from '@/server/store/sql';

export interface StoredSetupCode {
  code: string;
  /** epoch ms */
  expiresAtMs: number;
}

const rowName = 'setup-code';

const encode = (value: StoredSetupCode): Buffer => Buffer.from(JSON.stringify(value));

export class SetupCodeStore {
  constructor(private readonly db: SqlExecutor) {}

  private async row(): Promise<Buffer | undefined> {
    const row = await this.db.get<{ value: Buffer }>(`SELECT value FROM auth_secrets WHERE name = ?`, [rowName]);
    return row ? Buffer.from(row.value) : undefined;
  }

  async current(): Promise<StoredSetupCode | undefined> {
    const value = await this.row();
    return value && (JSON.parse(value.toString('utf8')) as StoredSetupCode);
  }

  /**
   * The code that holds at `nowMs`: the stored one while it lasts, else `fresh()` stored in its
   * place, unless another replica replaced it first (then that one).
   */
  async valid(options: { nowMs: number; fresh: () => StoredSetupCode }): Promise<StoredSetupCode> {
    for (;;) {
      const old = await this.row();
      const stored = old && (JSON.parse(old.toString('utf8')) as StoredSetupCode);
      if (stored && options.nowMs < stored.expiresAtMs) return stored;
      const next = encode(options.fresh());
      const result = old
        ? await this.db.run(`UPDATE auth_secrets SET value = ? WHERE name = ? AND value = ?`, [next, rowName, old])
        : await this.db.run(`INSERT INTO auth_secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING`, [rowName, next]);
      // Whether ours or a racing replica's, the row now holds a code that lasts: read it again.
      if (result.changes === 1) return JSON.parse(next.toString('utf8')) as StoredSetupCode;
    }
  }

  /** Spent: the password is set. */
  async remove(): Promise<void> {
    await this.db.run(`DELETE FROM auth_secrets WHERE name = ?`, [rowName]);
  }
}
