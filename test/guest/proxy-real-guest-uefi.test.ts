// The whole path on a real guest, driven through the HTTP API: a Proxy whose cloud-init opens Squid
// to the lab network boots the lab's Debian guest image under UEFI (software emulation, so
// minutes), gets its address from the guest agent the vendor-data script started, passes the
// probe through Squid to the lab image server, and leaves nothing behind when deleted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProxyView } from '@/lib/proxy-spec';
import { buildVendorData } from '@/server/providers/kvm2/seed';
import { imageServerStats, resetImageServerStats, virsh } from '@/test/lab/harness/lab';
import { guestIPv4Addresses, guestShell } from './harness/guest-agent';
import { guestImageKeys, guestMachineType, guestProviders, poolVolumes } from './harness/guest-lab';
import { type GuestSession, openGuestSession } from './harness/guest-session';
import { domainMac, instanceTraces, leasedAddress, markerPath, squidCloudInit } from './harness/proxy-guest';
import { milestonesFromEvents, PhaseTimeline, waitForProxy } from './harness/proxy-watch';
import { recordGuestTimings } from './harness/timings';

const name = 'guest-uefi';
const cloudInit = squidCloudInit();
const bootTimeoutMs = 15 * 60_000;

describe('a Proxy on a real Debian guest booted under UEFI, through the HTTP API', () => {
  let session: GuestSession;
  let ready: ProxyView;
  let instance: string;
  let timeline: PhaseTimeline | undefined;
  const timings: Record<string, number> = {};

  beforeAll(async () => {
    session = await openGuestSession();
    timings.imageBuildColdSeconds = session.image.coldBuildSeconds;
    timings.imageThisRunSeconds = Math.round(session.image.thisCallSeconds * 10) / 10;
    timings.imageBuiltThisRun = Number(session.image.built);
  });

  afterAll(async () => {
    if (!session) return;
    await session.api.call({ method: 'DELETE', path: `/api/proxies/${name}` }).catch(() => undefined);
    await session.close();
    recordGuestTimings(session.lab, 'uefi', { ...timings, ...timeline?.toJSON() });
  });

  it('goes Provisioning → Running with the address its guest agent reports, then Ready', async () => {
    const { api, lab, image } = session;
    await resetImageServerStats(lab);
    timeline = new PhaseTimeline();
    const created = await api.call({
      method: 'POST',
      path: '/api/proxies',
      body: {
        name,
        mode: 'Managed',
        provider: guestProviders.withAgent,
        placement: { machineType: guestMachineType, image: guestImageKeys(image).uefi },
        cloudInit: cloudInit.userData,
      },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);

    await waitForProxy({ api, name, what: 'Running', until: (view) => view?.status.phase === 'Running' || view?.status.phase === 'Ready', timeoutMs: bootTimeoutMs, timeline });
    ready = (await waitForProxy({ api, name, what: 'Ready', until: (view) => view?.status.phase === 'Ready', timeoutMs: 5 * 60_000, timeline })) as ProxyView;
    instance = ready.instanceName ?? '';
    expect(instance).toMatch(/^proxy-[0-9a-f]{16}$/);

    // The reconciler's own record of the way there, oldest first.
    const newestFirst = await api.events(name);
    Object.assign(timings, milestonesFromEvents(newestFirst));
    const events = [...newestFirst].reverse();
    const phaseChanges = events.filter((event) => event.reason === 'PhaseChanged').map((event) => event.message);
    expect(phaseChanges.slice(-2)).toEqual([expect.stringMatching(/→ Provisioning$/), 'Provisioning → Running']);
    const running = events.findIndex((event) => event.message === 'Provisioning → Running');
    expect(events.findIndex((event) => event.reason === 'Healthy')).toBeGreaterThan(running);

    // The address is the guest's own (agent) and the one the lab's DHCP leased to the VM's NIC.
    expect(await guestIPv4Addresses(instance)).toEqual([ready.status.ip]);
    expect(leasedAddress(lab, await domainMac(instance))).toBe(ready.status.ip);
    expect(await virsh(['domifaddr', instance, '--source', 'agent'])).toContain(`${ready.status.ip}/24`);
  });

  it('received its user-data byte for byte and ran the vendor-data script, which started the agent', async () => {
    const seeded = await guestShell(instance, 'mkdir -p /run/kvm2-seed && (mountpoint -q /run/kvm2-seed || mount -o ro /dev/sr0 /run/kvm2-seed) && cat /run/kvm2-seed/user-data');
    expect(seeded.equals(Buffer.from(cloudInit.userData, 'utf8')), seeded.toString('utf8')).toBe(true);
    const consumed = await guestShell(instance, 'cat /var/lib/cloud/instance/user-data.txt');
    expect(consumed.equals(Buffer.from(cloudInit.userData, 'utf8'))).toBe(true);
    expect((await guestShell(instance, `cat ${markerPath}`)).toString()).toBe(`${cloudInit.marker}\n`);

    const vendorData = await guestShell(instance, 'cat /var/lib/cloud/instance/vendor-data.txt');
    expect(vendorData.toString('utf8')).toBe(buildVendorData({ installGuestAgent: true }));
    const output = (await guestShell(instance, 'cat /var/log/cloud-init-output.log')).toString();
    expect(output).toContain('kvm2: qemu-guest-agent step finished');
    expect((await guestShell(instance, 'cloud-init status')).toString()).toContain('status: done');
    // The image masks the agent's udev autostart: it runs because the vendor-data script started it.
    expect((await guestShell(instance, 'readlink /etc/udev/rules.d/60-qemu-guest-agent.rules')).toString().trim()).toBe('/dev/null');
  });

  it('is Ready because the probe went through Squid in the guest to the lab image server', async () => {
    expect(ready.status.healthy).toBe(true);
    expect(ready.status.conditions).toContainEqual(expect.objectContaining({ type: 'Healthy', status: 'True', reason: 'TargetReachable' }));
    expect((await imageServerStats(session.lab))['/probe']).toBeGreaterThan(0);
    const accessLog = (await guestShell(instance, 'cat /var/log/squid/access.log')).toString();
    expect(accessLog).toContain(`GET ${session.probeUrl}`);
  });

  it('is deleted through the API, leaving nothing of it on the host but the cached base image', async () => {
    const { api, lab, image } = session;
    const started = performance.now();
    const deleted = await api.call({ method: 'DELETE', path: `/api/proxies/${name}` });
    expect(deleted.status).toBe(202);
    await waitForProxy({ api, name, what: 'deletion', until: (view) => view === undefined, timeoutMs: 5 * 60_000 });
    timings.deleteSeconds = Math.round((performance.now() - started) / 100) / 10;

    expect(await instanceTraces(lab, instance)).toEqual([]);
    const base = `base-${guestProviders.withAgent}-${guestImageKeys(image).uefi}.qcow2`;
    expect(await poolVolumes(lab, base)).toEqual([base, `${base}.sha256`]);
  });
});
