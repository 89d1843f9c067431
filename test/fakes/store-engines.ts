// Runs store tests against both engines: SQLite in a temp directory and a real PostgreSQL (a
// throwaway cluster started on first use in this test file, stopped after it).
import { afterAll, beforeAll } from 'vitest';
import { openStore, type Store } from '@/server/store';
import type { Migration } from '@/server/store/migrations';
import type { Engine } from '@/server/store/sql';
import { tempDir } from './control-plane';
import { type PostgresCluster, startPostgresCluster } from './postgres-cluster';

export const storeEngines: readonly Engine[] = ['sqlite', 'postgres'];

export interface EngineStores {
  /** a fresh, empty (migrated) store on `engine` */
  open(engine: Engine, options?: { migrations?: readonly Migration[] }): Promise<Store>;
  /** a fresh, empty location on `engine`, for tests that open it themselves */
  location(engine: Engine): Promise<{ dataDir: string; databaseUrl?: string }>;
}

/** Call at a test file's top level: starts the cluster before the file's tests, cleans up after. */
export function storeEnginesForFile(): EngineStores {
  let cluster: Promise<PostgresCluster> | undefined;
  const dirs: Array<{ remove: () => void }> = [];
  const stores: Store[] = [];
  beforeAll(async () => {
    cluster = startPostgresCluster();
    await cluster;
  }, 60_000);
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    for (const dir of dirs) dir.remove();
    if (cluster) (await cluster).stop();
  }, 30_000);
  const location = async (engine: Engine) => {
    const dir = tempDir('store-');
    dirs.push(dir);
    if (engine === 'sqlite') return { dataDir: dir.path };
    if (!cluster) throw new Error('storeEnginesForFile() must be called at the top level of the test file');
    return { dataDir: dir.path, databaseUrl: await (await cluster).createDatabase() };
  };
  return {
    location,
    async open(engine, options = {}) {
      const store = await openStore({ ...(await location(engine)), ...options });
      stores.push(store);
      return store;
    },
  };
}
