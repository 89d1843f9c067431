// kvm2's host-capacity capability: what a placement needs from a host and, per host, the pool's
// free space, the node's free memory (NODE_GET_MEMORY_STATS: free + buffers + cached) and the
// managed domains, read over the pooled connection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainState, StoragePoolState } from '@/server/libvirt';
import { errorClassOf } from '@/server/providers/errors';
import { buildMetadataXML, metadataURI } from '@/server/providers/kvm2/metadata';
import { FakeHypervisor } from '@/test/fakes/fake-libvirt';
import { makeHarness, TestMirror } from './kvm2-fixture';

const mirror = new TestMirror();
beforeAll(() => mirror.start());
afterAll(() => mirror.stop());

const gib = 1024 ** 3;
const mib = 1024 ** 2;
const mark = (uid: string) => ({ [metadataURI]: buildMetadataXML({ managed: true, uid, created: '2026-01-01T00:00:00Z' }) });

describe('kvm2 host capacity', () => {
  it('needs the overlay at diskSizeGb plus the seed reserve, and the machine type memory', () => {
    const { provider } = makeHarness({ mirror, hosts: ['h1', 'h2'], diskSizeGb: 12 });
    expect(provider.capacity.needs({ machineType: 'small', image: 'img' })).toEqual({ diskBytes: 12 * gib + 16 * mib, memoryBytes: 256 * mib });
    expect(provider.capacity.hosts()).toEqual(['h1', 'h2']);
    expect(provider.capacity.policy).toBe('spread');
  });

  it('refuses an unknown machine type permanently, with the spec message', () => {
    const { provider } = makeHarness({ mirror, hosts: ['h1', 'h2'] });
    let thrown: unknown;
    try {
      provider.capacity.needs({ machineType: 'huge', image: 'img' });
    } catch (err) {
      thrown = err;
    }
    expect(errorClassOf(thrown)).toBe('permanent');
    expect((thrown as Error).message).toBe('placement.machineType "huge" is not in kvm2.machineTypes');
  });

  it('measures pool space, free memory and managed domains of one host', async () => {
    const h1 = new FakeHypervisor();
    const h2 = new FakeHypervisor();
    h2.memoryStatsKiB = { total: 4_194_304n, free: 1_048_576n, buffers: 0n, cached: 524_288n };
    h2.addDomain({ name: 'proxy-a', state: DomainState.Running, metadata: mark('ua') });
    h2.addDomain({ name: 'proxy-b', state: DomainState.Shutoff, metadata: mark('ub') });
    h2.addDomain({ name: 'hand-made', state: DomainState.Running });
    const { provider } = makeHarness({ mirror, hosts: ['h1', 'h2'], hypervisors: { h1, h2 } });

    expect(await provider.capacity.measure('h2')).toEqual({
      host: 'h2',
      pool: 'default',
      poolRunning: true,
      poolAvailableBytes: 100 * gib,
      freeMemoryBytes: 1.5 * gib,
      managedInstances: 2,
    });
  });

  it('reports a pool that is not running as such, with no space', async () => {
    const h1 = new FakeHypervisor();
    h1.pools.get('default')!.state = StoragePoolState.Inactive;
    const { provider } = makeHarness({ mirror, hosts: ['h1', 'h2'], hypervisors: { h1, h2: new FakeHypervisor() } });
    expect(await provider.capacity.measure('h1')).toMatchObject({ poolRunning: false, poolAvailableBytes: 0 });
  });

  it('takes the placement policy from the kvm2 block', () => {
    const { provider } = makeHarness({ mirror, hosts: ['h1', 'h2'], placementPolicy: 'pack' });
    expect(provider.capacity.policy).toBe('pack');
  });
});
