// installGuestAgent: false: the guest image ships the agent but does not start it by itself, so
// with no vendor-data script there is no agent and the address can only come from the host's ARP
// table. The guest does talk to the host (DHCP, and the test's own connection to its Squid), so the
// hypervisor namespace's neighbour table has its entry; whether libvirt's ARP source can read it decides the outcome, and the Proxy must
// agree with libvirt: Running (then Ready) at the ARP address when libvirt answers, Provisioning
// with a transient "every address source failed" when it errors (the spec's known gap). libvirt
// 9.0 errors ("wrong nlmsg len") on kernels that put NLMSG_DONE into the same datagram as the last
// neighbour, which is the case on this lab's machines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nsExec, runCommand } from '@/test/lab/harness/lab';
import { agentAnswers } from './harness/guest-agent';
import { guestImageKeys, guestMachineType, guestProviders } from './harness/guest-lab';
import { type GuestSession, openGuestSession } from './harness/guest-session';
import { domainMac, instanceTraces, leasedAddress, squidCloudInit } from './harness/proxy-guest';
import { milestonesFromEvents, PhaseTimeline, waitForProxy } from './harness/proxy-watch';
import { recordGuestTimings } from './harness/timings';

const name = 'guest-noagent';
const cloudInit = squidCloudInit();

async function until<T>(options: { what: string; timeoutMs: number; probe: () => Promise<T | undefined> }): Promise<T> {
  const { what, timeoutMs, probe } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
}

describe('a Proxy on the real guest without the guest agent (installGuestAgent: false)', () => {
  let session: GuestSession;
  let timeline: PhaseTimeline | undefined;
  const timings: Record<string, number> = {};

  beforeAll(async () => {
    session = await openGuestSession();
  });

  afterAll(async () => {
    if (!session) return;
    await session.api.call({ method: 'DELETE', path: `/api/proxies/${name}` }).catch(() => undefined);
    await session.close();
    recordGuestTimings(session.lab, 'no-agent', { ...timings, ...timeline?.toJSON() });
  });

  it('takes its address from ARP exactly when libvirt can read the ARP table, and is deleted cleanly', async () => {
    const { api, lab, image } = session;
    timeline = new PhaseTimeline();
    const created = await api.call({
      method: 'POST',
      path: '/api/proxies',
      body: {
        name,
        mode: 'Managed',
        provider: guestProviders.withoutAgent,
        placement: { machineType: guestMachineType, image: guestImageKeys(image).uefi },
        cloudInit: cloudInit.userData,
      },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const provisioning = await waitForProxy({ api, name, what: 'an instance', until: (view) => view?.status.providerID !== undefined, timeoutMs: 10 * 60_000, timeline });
    const instance = provisioning?.instanceName ?? '';

    // The guest booted far enough to ask the host for an address: the host has seen it.
    const mac = await domainMac(instance);
    const leased = await until({ what: 'DHCP lease', timeoutMs: 15 * 60_000, probe: async () => leasedAddress(lab, mac) });
    timings.leaseSeconds = Math.round((performance.now() - timeline.startedAt) / 100) / 10;
    // Squid answering means the boot reached multi-user; cloud-init's final stage, where the
    // vendor-data script would start the agent, follows within seconds. Give it ample time.
    const squidAnswers = () =>
      fetch(`http://${leased}:3128/`, { signal: AbortSignal.timeout(5_000) }).then(
        (response) => response.status,
        () => undefined,
      );
    await until({ what: 'Squid on the guest', timeoutMs: 10 * 60_000, probe: squidAnswers });
    timings.squidSeconds = Math.round((performance.now() - timeline.startedAt) / 100) / 10;
    // The host's neighbour table has the guest (its DHCP exchange and the traffic just now).
    expect(await nsExec(lab.hypervisorNetns, ['ip', 'neigh', 'show', leased])).toContain(mac);
    await new Promise((resolve) => setTimeout(resolve, 45_000));
    expect(await agentAnswers(instance)).toBe(false);

    const arp = await runCommand(['virsh', '-q', '-c', 'qemu:///system', 'domifaddr', instance, '--source', 'arp']);
    const arpAnswered = arp.exitCode === 0 && arp.stdout.includes(leased);
    timings.arpSourceAnswered = Number(arpAnswered);
    if (arpAnswered) {
      const ready = await waitForProxy({ api, name, what: 'Ready', until: (view) => view?.status.phase === 'Ready', timeoutMs: 5 * 60_000, timeline });
      expect(ready?.status.ip).toBe(leased);
    } else {
      expect(arp.stderr).toMatch(/wrong nlmsg len|no .*address/i);
      const view = await waitForProxy({
        api,
        name,
        what: 'a transient address error',
        until: (current) => current?.status.lastError?.message.includes('every address source failed') === true,
        timeoutMs: 60_000,
        timeline,
      });
      expect(view?.status.phase).toBe('Provisioning');
      expect(view?.status.ip).toBeUndefined();
      expect(view?.status.lastError?.class).toBe('transient');
    }

    Object.assign(timings, milestonesFromEvents(await api.events(name)));
    expect((await api.call({ method: 'DELETE', path: `/api/proxies/${name}` })).status).toBe(202);
    await waitForProxy({ api, name, what: 'deletion', until: (view) => view === undefined, timeoutMs: 5 * 60_000 });
    expect(await instanceTraces(lab, instance)).toEqual([]);
  });
});
