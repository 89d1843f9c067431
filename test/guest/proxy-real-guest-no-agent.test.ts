// installGuestAgent: false, on each lab host: the guest image ships the agent but does not start it
// by itself, so with no vendor-data script there is no agent and the address can only come from the
// host's ARP table. The guest does talk to the host (DHCP, and the test's own connection to its
// Squid), so the host namespace's neighbour table has its entry; whether libvirt's ARP source can
// read it decides the outcome, and the Proxy must agree with libvirt: Running (then Ready) at the
// ARP address when libvirt answers, Provisioning with a transient "every address source failed"
// when it errors (the spec's known gap). libvirt 9.0 (lab1) errors ("wrong nlmsg len") on kernels
// that put NLMSG_DONE into the same datagram as the last neighbour, as this lab's kernel does;
// libvirt 11.3 (lab2) reads the table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudInitProgress } from '@/server/control/cloud-init-console';
import { nsExec, runCommand, virshArgv } from '@/test/lab/harness/lab';
import { until } from '@/test/support/wait';
import { agentAnswers } from './harness/guest-agent';
import { domainMac, leasedAddress } from './harness/guest-domain';
import { guestProviders } from './harness/guest-lab';
import { GuestProxy, guestSessionForFile } from './harness/guest-proxy';
import { squidCloudInit } from './harness/proxy-guest';

const session = guestSessionForFile();

describe.each(['lab1', 'lab2'])('a Proxy on the real guest without the guest agent (installGuestAgent: false) on %s', (host) => {
  let proxy: GuestProxy;

  beforeAll(() => {
    proxy = new GuestProxy(session(), {
      name: `guest-noagent-${host}`,
      host,
      provider: guestProviders.withoutAgent,
      firmware: 'uefi',
      cloudInit: squidCloudInit(),
      variant: `no-agent-${host}`,
    });
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it('takes its address from ARP exactly when libvirt can read the ARP table, and is deleted cleanly', async () => {
    await proxy.create();
    // The guest booted far enough to ask the host for an address: the host has seen it.
    const { domain, mac, leased } = await proxy.remakingStuckBoot(async (signal) => {
      const domain = await proxy.waitForInstance(10 * 60_000, signal);
      const mac = await domainMac(domain);
      const leased = await until({ what: 'DHCP lease', timeoutMs: 15 * 60_000, intervalMs: 2_000, probe: async () => leasedAddress(domain.host, mac), signal });
      return { domain, mac, leased };
    });
    const startedAt = proxy.timeline?.startedAt ?? performance.now();
    const seconds = () => Math.round((performance.now() - startedAt) / 100) / 10;
    proxy.timings.leaseSeconds = seconds();
    // Squid answering means the boot reached multi-user; cloud-init's final stage follows.
    const squidAnswers = () =>
      fetch(`http://${leased}:3128/`, { signal: AbortSignal.timeout(5_000) }).then(
        (response) => response.status,
        () => undefined,
      );
    await until({ what: 'Squid on the guest', timeoutMs: 10 * 60_000, intervalMs: 2_000, probe: squidAnswers });
    proxy.timings.squidSeconds = seconds();
    // The host's neighbour table has the guest (its DHCP exchange and the traffic just now).
    expect(await nsExec(domain.host.netns, ['ip', 'neigh', 'show', leased])).toContain(mac);
    // The vendor-data script, had there been one, would have started the agent in cloud-init's final
    // stage: once the console says that stage finished, an agent would answer by now.
    await until({
      what: "cloud-init's finished line on the console",
      timeoutMs: 5 * 60_000,
      intervalMs: 3_000,
      probe: async () => cloudInitProgress((await session().api.consoleStart(proxy.options.name)).text).finished || undefined,
    });
    proxy.timings.cloudInitFinishedSeconds = seconds();
    expect(await agentAnswers(domain)).toBe(false);

    const arp = await runCommand([...virshArgv(domain.host), 'domifaddr', domain.name, '--source', 'arp']);
    const arpAnswered = arp.exitCode === 0 && arp.stdout.includes(leased);
    proxy.timings.arpSourceAnswered = Number(arpAnswered);
    // libvirt 11.3 reads this kernel's neighbour table; 9.0's outcome depends on the kernel.
    if (domain.host.libvirtVersion === '11.3.0') expect(arpAnswered, arp.stderr).toBe(true);
    if (arpAnswered) {
      const ready = await proxy.waitFor('Ready', (view) => view?.status.phase === 'Ready', 5 * 60_000);
      expect(ready?.status.ip).toBe(leased);
    } else {
      expect(arp.stderr).toMatch(/wrong nlmsg len|no .*address/i);
      const view = await proxy.waitFor(
        'a transient address error',
        (current) => current?.status.lastError?.message.includes('every address source failed') === true,
        60_000,
      );
      expect(view?.status.phase).toBe('Provisioning');
      expect(view?.status.ip).toBeUndefined();
      expect(view?.status.lastError?.class).toBe('transient');
    }

    await proxy.noteMilestones();
    expect(await proxy.delete()).toEqual([]);
  });
});
