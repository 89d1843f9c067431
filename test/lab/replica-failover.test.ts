// Two replica processes on the lab's PostgreSQL driving the lab's real hypervisors through kvm2:
// one leader; a Proxy created through the follower is provisioned by the leader; SIGKILL and
// SIGSTOP of the leader hand over within 15 s, no domain is defined twice, nothing is lost, and a
// continued ex-leader steps down before any provider call (test/fakes/replica-failover.ts).
import { randomBytes } from 'node:crypto';
import { afterAll } from 'vitest';
import pg from 'pg';
import { instanceName } from '@/server/control/names';
import { replicaFailoverSuite, takeovers } from '@/test/fakes/replica-failover';
import { loadLab, removeDomain, removeVolume, virsh } from './harness/lab';
import { domainState, labProxy } from './control-support';
import { Kvm2LabRun } from './kvm2-provider-support';

const lab = loadLab();
const run = new Kvm2LabRun(lab);
const database = `failover_${randomBytes(3).toString('hex')}`;

async function onServer(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: lab.postgresUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

afterAll(async () => {
  await onServer(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  console.log(`takeover (kvm2 on the lab): ${takeovers.map((entry) => `${entry.signal} ${entry.ms} ms`).join(', ')}`);
}, 60_000);

replicaFailoverSuite('two replicas over the lab', () => ({
  async databaseUrl() {
    await onServer(`CREATE DATABASE ${database}`);
    const url = new URL(lab.postgresUrl);
    url.pathname = `/${database}`;
    return url.toString();
  },
  entry: run.entry(),
  namePrefix: `${run.entryName}-`,
  proxy: (name) => labProxy({ name, provider: run.entryName, zone: 'lab1' }),
  async instancesNamed(instance) {
    let count = 0;
    for (const host of lab.hosts) {
      const names = (await virsh(['list', '--all', '--name'], host.name)).split('\n').map((line) => line.trim());
      count += names.filter((name) => name === instance).length;
    }
    return count;
  },
  // Lab VMs get no address (the image does not ask for one): their domain runs, the status records it.
  converged: async (view) => view.status.providerID !== undefined && (await domainState(instanceName(view.name), 'lab1')) === 'running',
  convergeMs: 120_000,
  async cleanUp(names) {
    for (const host of lab.hosts) {
      for (const name of names) {
        await removeDomain(instanceName(name), host.name).catch(() => undefined);
        const volumes = (await virsh(['vol-list', '--pool', lab.pool.name], host.name).catch(() => ''))
          .split('\n')
          .map((line) => line.trim().split(/\s+/)[0] ?? '')
          .filter((volume) => volume.startsWith(instanceName(name)));
        for (const volume of volumes) await removeVolume(lab.pool.name, volume, host.name).catch(() => undefined);
      }
    }
    await run.cleanUp();
  },
}));
