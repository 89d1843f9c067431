// A fresh SQLite store in a temporary directory for each test, closed and removed after it: the
// before/after pair many control-plane tests need. `onOpen` receives each test's store.
import { afterEach, beforeEach } from 'vitest';
import { openStore, type Store } from '@/server/store';
import { tempDir } from '@/test/fakes/control-plane';

export function storePerTest(onOpen: (store: Store) => void): void {
  let dir: ReturnType<typeof tempDir> | undefined;
  let store: Store | undefined;
  beforeEach(async () => {
    dir = tempDir();
    store = await openStore({ dataDir: dir.path });
    onOpen(store);
  });
  afterEach(async () => {
    await store?.close();
    dir?.remove();
  });
}
