// The first-start setup code over several replicas and time: it lives in the shared store, so
// every replica (and a restarted one) prints and accepts the same code; it lasts an hour, after
// which the next replica to be asked makes a new one and prints it; an expired code sets nothing
// and says so.
import { beforeEach, describe, expect, it } from 'vitest';
import { InvalidSetupCodeError } from '@/server/auth/errors';
import { AuthService } from '@/server/auth/service';
import type { SqlExecutor } from '@/server/store/sql';
import { createLogger } from '@/server/telemetry/logger';
import { storeEngines, storeEnginesForFile } from '@/test/fakes/store-engines';

const engines = storeEnginesForFile();
let db: SqlExecutor;
let nowMs = 0;
const hour = 3_600_000;

function replica() {
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(line) } });
  const auth = new AuthService({ db, cost: { N: 1024, r: 8, p: 1 }, now: () => nowMs, logger });
  const printedCodes = () => lines.map((line) => /setup code to choose it: ([A-Z0-9-]+)/.exec(line)?.[1]).filter((code) => code !== undefined);
  return { auth, lines, printedCodes };
}
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (err: unknown) => err,
  );

describe.each(storeEngines)('the setup code in the %s store', (engine) => {
  beforeEach(async () => {
    db = (await engines.open(engine)).sql;
    nowMs = Date.parse('2026-05-01T10:00:00Z');
  });

  it('is one code for every replica, which each prints, and either accepts', async () => {
    const [a, b] = [replica(), replica()];
    await a.auth.init();
    await b.auth.init();
    const [code] = a.printedCodes();
    expect(code).toMatch(/^[A-HJ-NP-Z2-9]{5}-[A-HJ-NP-Z2-9]{5}-[A-HJ-NP-Z2-9]{5}$/);
    expect(b.printedCodes()).toEqual([code]);
    expect(a.lines.join('')).toMatch(/valid until 2026-05-01T11:00:00/);
    await b.auth.setup({ password: 'my password', setupCode: code!, client: 'c' });
    await a.auth.login({ password: 'my password', client: 'c' });
    expect(await a.auth.pendingSetupCode()).toBeUndefined();
  });

  it('expires after an hour: the expired code sets nothing and says so, and a new one is printed', async () => {
    const first = replica();
    await first.auth.init();
    const [code] = first.printedCodes();
    nowMs += hour;
    const expired = await failure(first.auth.setup({ password: 'my password', setupCode: code!, client: 'c' }));
    expect(expired).toBeInstanceOf(InvalidSetupCodeError);
    expect((expired as Error).message).toMatch(/expired.*new one/);
    expect(await db.all(`SELECT * FROM admin_password`)).toEqual([]);
    const printed = first.printedCodes();
    expect(printed).toHaveLength(2);
    expect(printed[1]).not.toBe(code);
    // a replica that started meanwhile prints the new code when someone opens the first-start form
    const other = replica();
    await other.auth.status(undefined);
    expect(other.printedCodes()).toEqual([printed[1]]);
    await other.auth.setup({ password: 'my password', setupCode: printed[1]!, client: 'c' });
    await first.auth.login({ password: 'my password', client: 'c' });
  });

  it('opening the first-start form after the hour prints a fresh code before anyone types the old one', async () => {
    const first = replica();
    await first.auth.init();
    nowMs += hour + 1;
    await first.auth.status(undefined);
    expect(first.printedCodes()).toHaveLength(2);
    await first.auth.setup({ password: 'my password', setupCode: first.printedCodes()[1]!, client: 'c' });
  });
});
