// A ProxySet of 3 on the lab's two hypervisors while lab2 freezes (SIGSTOP of its sshd and its
// libvirtd: the health check's fresh SSH dial gets no banner within its 10 s budget and says
// Unreachable). A blip shorter than hostDownGrace (30 s, the least a set accepts) changes nothing;
// frozen past the grace, each member on lab2 gets a replacement on lab1, and once lab2 answers again
// the displaced members are deleted there and the set is back to 3. Health checks every 2 s.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { instanceName } from '@/server/control/names';
import type { Runtime } from '@/server/runtime';
import { hostDaemonPid, type Lab, type LabHost, loadLab } from './harness/lab';
import { ControlLabRun } from './control-support';
import { allReachable, counts, definedByHost, hostReason, labSet, runningByHost, setEvents, setMembers, settled } from './proxy-set-lab-support';

const grace = '30s';
const graceMs = 30_000;

let lab: Lab;
let lab2: LabHost;
let run: ControlLabRun;
let runtime: Runtime;
let entry: string;
let set: string;
let frozen: number[] = [];

beforeAll(async () => {
  lab = loadLab();
  lab2 = lab.hosts.find((host) => host.name === 'lab2') as LabHost;
  run = new ControlLabRun(lab);
  entry = run.entryName('hostdown');
  set = run.setName('hostdown');
  runtime = await run.start({ entries: [{ suffix: 'hostdown' }], env: { PROVIDER_CHECK_INTERVAL: '2s', RECONCILE_BACKOFF_CAP: '3s' } });
  await allReachable(runtime, lab, entry);
});
afterAll(async () => {
  // lab2 runs again whatever happened: later tests need it.
  thaw();
  await run?.cleanUp();
});

function freeze(): void {
  frozen = [hostDaemonPid(lab2, 'sshd'), hostDaemonPid(lab2, 'libvirtd')];
  for (const pid of frozen) process.kill(pid, 'SIGSTOP');
}

function thaw(): void {
  for (const pid of frozen) {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // gone: nothing to resume
    }
  }
  frozen = [];
}

/** lab2 as the set controller last saw it: since when it has been down, if it is. */
const downSince = async () => (await runtime.store.proxySets.get(set))?.status.hostsDown.lab2;

const onLab2 = async () => (await setMembers(runtime, set)).filter((member) => member.placement?.zone === 'lab2').map((member) => member.name);

describe('a ProxySet while one hypervisor is frozen', () => {
  let before: Record<string, string[]>;

  it('a set of 3 lands on both hosts', async () => {
    await runtime.services.proxySets.create(labSet({ name: set, provider: entry, replicas: 3, readyTimeout: '1h', hostDownGrace: grace }));
    before = await settled({ runtime, lab, set, count: 3 });
    expect(Object.values(counts(before)).sort()).toEqual([1, 2]);
  });

  it('a blip shorter than the grace changes nothing', async () => {
    freeze();
    let seenDownMs: number;
    try {
      await vi.waitFor(async () => expect(await hostReason(runtime, entry, 'lab2'), 'lab2 Unreachable').toBe('Unreachable'), {
        timeout: 30_000,
        interval: 250,
      });
      // The controller has seen it down (its next pass, within 10 s): the grace counts from then.
      await vi.waitFor(async () => expect(await downSince(), 'the set controller to see lab2 down').toBeDefined(), { timeout: 20_000, interval: 250 });
      seenDownMs = Date.parse((await downSince()) as string);
    } finally {
      thaw();
    }
    await vi.waitFor(async () => expect(await downSince(), 'the set controller to see lab2 back').toBeUndefined(), { timeout: 30_000, interval: 250 });
    expect(Date.now() - seenDownMs, 'the blip to stay shorter than the grace').toBeLessThan(graceMs);
    expect(await settled({ runtime, lab, set, count: 3, timeoutMs: 30_000 })).toEqual(before);
    expect(await setEvents(runtime, set, 'MemberCreated')).toHaveLength(3);
    expect(await setEvents(runtime, set, 'MemberDeleted')).toEqual([]);
  });

  it("frozen past the grace, lab2's members are replaced on lab1; back again, they are deleted and the set is 3", async () => {
    const stranded = await onLab2();
    expect(stranded.length).toBeGreaterThan(0);
    freeze();
    try {
      await vi.waitFor(
        async () => {
          const created = (await setEvents(runtime, set, 'MemberCreated')).slice(3).map((event) => event.message);
          expect(created.map((message) => /in place of (\S+),/.exec(message)?.[1]).sort(), 'a replacement for each member on lab2').toEqual(
            [...stranded].sort(),
          );
        },
        { timeout: 90_000, interval: 500 },
      );
      const downFor = Date.now() - Date.parse((await downSince()) as string);
      expect(downFor, 'replaced only after the grace').toBeGreaterThanOrEqual(graceMs);
      const replacements = (await setMembers(runtime, set)).filter((member) => !Object.values(before).flat().includes(member.name));
      expect(replacements.map((member) => member.placement?.zone)).toEqual(stranded.map(() => 'lab1'));
      // lab2's libvirtd is frozen: only lab1 is asked.
      const lab1 = lab.hosts.find((host) => host.name === 'lab1') as LabHost;
      await vi.waitFor(
        async () => {
          const running = (
            await runningByHost(
              { ...lab, hosts: [lab1] },
              (await setMembers(runtime, set)).map((member) => member.name),
            )
          ).lab1;
          expect(running, 'the replacements running on lab1').toEqual([...(before.lab1 ?? []), ...replacements.map((member) => member.name)].sort());
        },
        { timeout: 90_000, interval: 1_000 },
      );
    } finally {
      thaw();
    }

    await allReachable(runtime, lab, entry);
    for (const name of stranded) {
      await vi.waitFor(async () => expect(await runtime.store.proxies.get(name), `${name} deleted once lab2 is back`).toBeUndefined(), {
        timeout: 90_000,
        interval: 500,
      });
    }
    const after = await settled({ runtime, lab, set, count: 3, timeoutMs: 60_000 });
    expect(counts(after)).toEqual({ lab1: 3 });
    expect(await definedByHost(lab, run.domains)).toEqual({ lab1: 3, lab2: 0 });
    expect((await setEvents(runtime, set, 'MemberDeleted')).map((event) => event.message).sort()).toEqual(
      stranded.map((name) => `${name}: its host is back and a replacement runs elsewhere`).sort(),
    );
    for (const name of stranded) expect(run.domains.has(instanceName(name))).toBe(true);
    expect((await runtime.services.proxySets.get(set)).status.members).toBe(3);
  });
});
