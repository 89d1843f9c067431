// Host and domain telemetry from the lab's real libvirtd over real sshd: node info, node CPU and
// memory stats agree with virsh, and one CONNECT_GET_ALL_DOMAIN_STATS call reads a running
// domain's state, CPU time, balloon and NIC, with the CPU counter moving between two reads.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { DomainState, DomainStatsTypes, GetAllDomainStatsFlags, type DomainStats, type LibvirtClient } from '@/server/libvirt';
import { virsh } from './harness/lab';
import { idleDomainSuite } from './rpc-domain-support';
import { uniqueName } from './rpc-lab-support';

const name = uniqueName('stats');
const suite = idleDomainSuite({ name });
let libvirt: LibvirtClient;
beforeAll(() => {
  libvirt = suite.libvirt;
});

/** `virsh nodeinfo` as field -> value. */
async function nodeinfo(): Promise<Record<string, string>> {
  const lines = (await virsh(['nodeinfo'])).split('\n').map((line) => line.split(':').map((part) => part.trim()));
  return Object.fromEntries(lines.filter((parts) => parts.length === 2));
}

const allGroups = DomainStatsTypes.State | DomainStatsTypes.CpuTotal | DomainStatsTypes.Balloon | DomainStatsTypes.Interface | DomainStatsTypes.Block;

describe('host telemetry', () => {
  it('nodeGetInfo (6) gives what virsh nodeinfo shows', async () => {
    const info = await libvirt.nodeGetInfo();
    const virshInfo = await nodeinfo();
    expect(info.model).toBe(virshInfo['CPU model']);
    expect(info.cpus).toBe(Number(virshInfo['CPU(s)']));
    expect(`${info.memoryKiB} KiB`).toBe(virshInfo['Memory size']);
  });

  it('nodeGetCpuStats (227) gives the cumulative CPU times, and idle moves', async () => {
    const first = await libvirt.nodeGetCpuStats();
    expect(Object.keys(first).sort()).toEqual(['idle', 'iowait', 'kernel', 'user']);
    await vi.waitFor(
      async () => {
        const second = await libvirt.nodeGetCpuStats();
        expect(second.idle! + second.user! + second.kernel!).toBeGreaterThan(first.idle! + first.user! + first.kernel!);
      },
      { timeout: 5_000, interval: 50 },
    );
  });

  it('nodeGetMemoryStats (228) gives total and free memory as virsh nodememstats does', async () => {
    const memory = await libvirt.nodeGetMemoryStats();
    expect(Object.keys(memory).sort()).toEqual(['buffers', 'cached', 'free', 'total']);
    const total = /total\s*:\s*(\d+) KiB/.exec(await virsh(['nodememstats']))?.[1];
    expect(memory.total).toBe(BigInt(total ?? -1));
    expect(memory.free!).toBeLessThan(memory.total!);
  });
});

describe('domain telemetry in one call', () => {
  let first: DomainStats;

  it('connectGetAllDomainStats (344) reads a running domain: state, CPU, balloon, NIC, no disks', async () => {
    const all = await libvirt.connectGetAllDomainStats({ stats: allGroups, flags: GetAllDomainStatsFlags.Active });
    first = all.find((record) => record.dom.name === name)!;
    expect(first).toBeDefined();
    expect(first.state).toEqual({ state: DomainState.Running, reason: 1 });
    expect(first.cpu?.timeNs).toBeGreaterThan(0n);
    expect(first.balloon?.maximumKiB).toBe(65_536n);
    expect(first.interfaces).toHaveLength(1);
    expect(first.interfaces?.[0]?.name).toMatch(/^vnet\d+$/);
    expect(first.blocks).toEqual([]);
    const domstats = await virsh(['domstats', '--state', name]);
    expect(domstats).toContain(`state.state=${DomainState.Running}`);
  });

  it('the CPU counter moves between two reads of the same domain', async () => {
    // An idle SeaBIOS halts between boot attempts; a reset makes the firmware run (and count) again.
    await virsh(['reset', name]);
    const again = await vi.waitFor(
      async () => {
        const [record] = await libvirt.connectGetAllDomainStats({ stats: allGroups, doms: [first.dom] });
        expect(record!.cpu!.timeNs).toBeGreaterThan(first.cpu!.timeNs);
        return record!;
      },
      { timeout: 15_000, interval: 250 },
    );
    expect(again.dom.name).toBe(name);
  });

  it('filters by state: a shut-off domain is not among the active ones', async () => {
    await virsh(['destroy', name]);
    const active = await libvirt.connectGetAllDomainStats({ stats: DomainStatsTypes.State, flags: GetAllDomainStatsFlags.Active });
    expect(active.map((record) => record.dom.name)).not.toContain(name);
    const inactive = await libvirt.connectGetAllDomainStats({ stats: DomainStatsTypes.State, flags: GetAllDomainStatsFlags.Inactive });
    expect(inactive.find((record) => record.dom.name === name)?.state?.state).toBe(DomainState.Shutoff);
  });
});
