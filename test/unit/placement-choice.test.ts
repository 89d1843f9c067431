import { describe, expect, it } from 'vitest';
import { chooseHost, describeRefusals, type HostFacts } from '@/server/control/placement-choice';
import type { PlacementPolicy } from '@/server/providers/host-capacity';

const gib = 1024 ** 3;
const needs = { diskBytes: 10 * gib, memoryBytes: 1 * gib };
const reachable = { ready: true, reason: 'Reachable', message: '' };

function host(name: string, fields: { vms?: number; poolGiB?: number; memoryGiB?: number; poolRunning?: boolean } = {}): HostFacts {
  return {
    host: name,
    health: reachable,
    capacity: {
      host: name,
      pool: 'default',
      poolRunning: fields.poolRunning ?? true,
      poolAvailableBytes: (fields.poolGiB ?? 180) * gib,
      freeMemoryBytes: (fields.memoryGiB ?? 3.1) * gib,
      managedInstances: fields.vms ?? 0,
    },
  };
}

interface Row {
  name: string;
  policy?: PlacementPolicy;
  hosts: HostFacts[];
  chosen?: string;
  refused: Record<string, string>;
}

const rows: Row[] = [
  { name: 'spread takes the host with the fewest managed VMs', hosts: [host('lab1', { vms: 3 }), host('lab2', { vms: 2 })], chosen: 'lab2', refused: {} },
  {
    name: 'pack takes the host with the most managed VMs',
    policy: 'pack',
    hosts: [host('lab1', { vms: 3 }), host('lab2', { vms: 2 })],
    chosen: 'lab1',
    refused: {},
  },
  { name: 'config order breaks a tie', hosts: [host('lab1', { vms: 1 }), host('lab2', { vms: 1 })], chosen: 'lab1', refused: {} },
  {
    name: 'a host without the memory of the machine type is refused',
    hosts: [host('lab1', { memoryGiB: 0.5 }), host('lab2', { vms: 5 })],
    chosen: 'lab2',
    refused: { lab1: '0.5 GiB memory free, 1 GiB needed' },
  },
  {
    name: 'a pool without room for the overlay and seed is refused',
    hosts: [host('lab1', { poolGiB: 4 }), host('lab2', { vms: 5 })],
    chosen: 'lab2',
    refused: { lab1: 'storage pool "default" has 4 GiB free, 10 GiB needed' },
  },
  {
    name: 'a pool that is not running is refused',
    hosts: [host('lab1', { poolRunning: false }), host('lab2', { vms: 5 })],
    chosen: 'lab2',
    refused: { lab1: 'storage pool "default" is not running' },
  },
  {
    name: 'a host its latest health check found unready (unreachable) is refused with the reason',
    hosts: [{ host: 'lab1', health: { ready: false, reason: 'Unreachable', message: 'connection refused' } }, host('lab2', { vms: 5 })],
    chosen: 'lab2',
    refused: { lab1: 'not healthy: Unreachable (connection refused)' },
  },
  {
    name: 'a host that was never checked or could not be measured is refused',
    hosts: [{ host: 'lab1' }, { host: 'lab2', health: reachable, measureError: 'socket closed' }],
    refused: { lab1: 'no health check has finished yet', lab2: 'could not be measured: socket closed' },
  },
  {
    name: 'no host fits: every host is named with its reason',
    hosts: [host('lab1', { memoryGiB: 0.25 }), host('lab2', { poolGiB: 2 })],
    refused: { lab1: '0.2 GiB memory free, 1 GiB needed', lab2: 'storage pool "default" has 2 GiB free, 10 GiB needed' },
  },
];

describe('choosing a host for a Proxy without placement.zone', () => {
  it.each(rows)('$name', ({ policy = 'spread', hosts, chosen, refused }) => {
    const choice = chooseHost({ hosts, needs, policy });
    expect(choice.kind === 'chosen' ? choice.host : undefined).toBe(chosen);
    expect(Object.fromEntries(choice.refusals.map((refusal) => [refusal.host, refusal.reason]))).toEqual(refused);
  });

  it('gives the reason as pool space, free memory and managed VMs of the chosen host', () => {
    const choice = chooseHost({ hosts: [host('lab1', { vms: 4 }), host('lab2', { vms: 2 })], needs, policy: 'spread' });
    expect(choice).toMatchObject({ kind: 'chosen', reason: 'lab2: 180 GiB free, 3.1 GiB memory free, 2 VMs (spread)' });
  });

  it('names every refused host in the waiting message', () => {
    const choice = chooseHost({
      hosts: [host('lab1', { poolRunning: false }), { host: 'lab2', health: { ready: false, reason: 'Timeout', message: '' } }],
      needs,
      policy: 'spread',
    });
    expect(choice.kind).toBe('none');
    expect(describeRefusals(choice.refusals)).toBe('no host fits: lab1: storage pool "default" is not running; lab2: not healthy: Timeout');
  });
});
