// Two replica processes on one PostgreSQL with the fake provider (its instances in a file both
// share): exactly one leads, and SIGKILL or SIGSTOP of the leader hands over within 15 s without
// an instance made twice (test/fakes/replica-failover.ts; the lab runs the same over kvm2).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { tempDir } from '@/test/fakes/control-plane';
import { replicaFailoverSuite, takeovers } from '@/test/fakes/replica-failover';
import { storeEnginesForFile } from '@/test/fakes/store-engines';

const engines = storeEnginesForFile();
const dir = tempDir('replica-fake-');
const stateFile = join(dir.path, 'instances.json');
afterAll(() => {
  dir.remove();
  console.log(`takeover (fake provider): ${takeovers.map((entry) => `${entry.signal} ${entry.ms} ms`).join(', ')}`);
});

replicaFailoverSuite('two replicas over the fake provider', () => ({
  databaseUrl: async () => (await engines.location('postgres')).databaseUrl!,
  entry: { name: 'fake-1', type: 'fake' } as never,
  env: { FAKE_STATE: stateFile },
  proxy: (name) => ({
    name,
    mode: 'Managed',
    provider: 'fake-1',
    placement: { zone: 'host-a', machineType: 'small', image: 'debian-13' },
    cloudInit: '#cloud-config\n',
  }),
  instancesNamed: async (instance) => {
    const instances = JSON.parse(readFileSync(stateFile, 'utf8')) as Array<{ name: string }>;
    return instances.filter((entry) => entry.name === instance).length;
  },
  converged: async (view) => view.status.phase === 'Running' || view.status.phase === 'Ready',
  convergeMs: 30_000,
}));
