// The store indexes Proxies by their instance's name (migration 13's instance_name column and
// index, as controller-runtime indexes a field): an instance event finds its Proxy with one indexed
// lookup instead of naming every Proxy. Rows an earlier version wrote (no instance name then) are
// still found, and named once found. On SQLite and PostgreSQL alike.
import { describe, expect, it } from 'vitest';
import type { ProxySpec } from '@/lib/proxy-spec';
import { instanceName } from '@/server/control/names';
import { openStore, type Store } from '@/server/store';
import { migrations } from '@/server/store/migrations';
import { byInstanceNameSql } from '@/server/store/proxies';
import { storeEngines, storeEnginesForFile } from '@/test/fakes/store-engines';

const engines = storeEnginesForFile();
const spec = (zone: string): ProxySpec => ({
  mode: 'Managed',
  provider: 'kvm2-home',
  placement: { zone, machineType: 'small', image: 'debian' },
  cloudInit: '',
  port: 3128,
  labels: {},
});
const now = new Date(60_000).toISOString();

/** The plan the engine chooses for the lookup, as text (PostgreSQL told to avoid a scan it could use on a table this small). */
async function lookupPlan(store: Store): Promise<string> {
  const lookup = byInstanceNameSql;
  if (store.engine === 'sqlite') {
    const rows = await store.sql.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${lookup}`, ['proxy-0123456789abcdef']);
    return rows.map((row) => row.detail).join('\n');
  }
  return store.sql.transaction(async (tx) => {
    await tx.run(`SET LOCAL enable_seqscan = off`);
    const rows = await tx.all<{ 'QUERY PLAN': string }>(`EXPLAIN ${lookup}`, ['proxy-0123456789abcdef']);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}

describe.each(storeEngines)('the Proxies’ instance-name index on %s', (engine) => {
  it('finds the Proxy whose instance it is, and none for a name no Proxy has', async () => {
    const store = await engines.open(engine);
    for (const name of ['alpha', 'beta', 'gamma']) await store.proxies.insert({ uid: `uid-${name}`, name, spec: spec('hv-1'), now });
    expect((await store.proxies.byInstanceName(instanceName('beta'))).map((record) => record.name)).toEqual(['beta']);
    expect(await store.proxies.byInstanceName('web-1')).toEqual([]);
    expect(await store.proxies.byInstanceName(instanceName('removed'))).toEqual([]);
  });

  it('is what the lookup reads', async () => {
    const store = await engines.open(engine);
    expect(await lookupPlan(store)).toContain('proxies_by_instance_name');
  });

  it('finds rows the previous version wrote (no instance name then), and names them once found', async () => {
    const location = await engines.location(engine);
    const previous = await openStore({ ...location, migrations: migrations.filter((migration) => migration.version < 13) });
    try {
      // The previous version's own statement, column for column.
      for (const name of ['alpha', 'beta']) {
        await previous.sql.run(`INSERT INTO proxies (uid, name, spec, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`, [
          `uid-${name}`,
          name,
          JSON.stringify(spec('hv-1')),
          JSON.stringify({ phase: 'Pending', conditions: [] }),
          now,
          now,
        ]);
      }
    } finally {
      await previous.close();
    }
    const store = await openStore(location);
    try {
      expect((await store.proxies.byInstanceName(instanceName('alpha'))).map((record) => record.name)).toEqual(['alpha']);
      const named = await store.sql.all<{ name: string; instance_name: string | null }>(`SELECT name, instance_name FROM proxies ORDER BY name`);
      expect(named).toEqual([
        { name: 'alpha', instance_name: instanceName('alpha') },
        { name: 'beta', instance_name: instanceName('beta') },
      ]);
      expect((await store.proxies.byInstanceName(instanceName('beta'))).map((record) => record.name)).toEqual(['beta']);
    } finally {
      await store.close();
    }
  });
});
