// The whole path on a real guest, driven through the HTTP API, on each lab host (lab1: Debian 12's
// libvirt 9.0 / QEMU 7.2; lab2: Debian 13's libvirt 11.3 / QEMU 10): a Proxy whose cloud-init opens
// Squid to the lab network boots the lab's Debian guest image under UEFI (software emulation, so
// minutes), gets its address from the guest agent the vendor-data script started, passes the probe
// through Squid to the lab image server, and leaves nothing behind when deleted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProxyView } from '@/lib/proxy-spec';
import { buildVendorData } from '@/server/providers/kvm2/seed';
import { imageServerStats, resetImageServerStats, virsh } from '@/test/lab/harness/lab';
import { guestIPv4Addresses, guestShell } from './harness/guest-agent';
import { domainMac, leasedAddress } from './harness/guest-domain';
import { guestImageKeys, guestProviders, poolVolumes } from './harness/guest-lab';
import { GuestProxy, guestSessionForFile } from './harness/guest-proxy';
import { markerPath, squidCloudInit } from './harness/proxy-guest';

const bootTimeoutMs = 15 * 60_000;
const session = guestSessionForFile();

describe.each(['lab1', 'lab2'])('a Proxy on a real Debian guest booted under UEFI on %s, through the HTTP API', (host) => {
  const cloudInit = squidCloudInit();
  let proxy: GuestProxy;
  let ready: ProxyView;

  beforeAll(() => {
    proxy = new GuestProxy(session(), {
      name: `guest-uefi-${host}`,
      host,
      provider: guestProviders.withAgent,
      firmware: 'uefi',
      cloudInit,
      variant: `uefi-${host}`,
    });
    const { image } = session();
    Object.assign(proxy.timings, {
      imageBuildColdSeconds: image.coldBuildSeconds,
      imageThisRunSeconds: Math.round(image.thisCallSeconds * 10) / 10,
      imageBuiltThisRun: Number(image.built),
    });
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it('goes Provisioning → Running with the address its guest agent reports, then Ready', async () => {
    await resetImageServerStats(session().lab);
    await proxy.create();
    ready = await proxy.waitForReady(bootTimeoutMs);
    expect(ready.instanceName).toMatch(/^proxy-[0-9a-f]{16}$/);
    expect(ready.status.providerID).toBe(`hosts/${host}/domains/${ready.instanceName}`);

    // The reconciler's own record of the way there, oldest first.
    const events = [...(await proxy.noteMilestones())].reverse();
    const phaseChanges = events.filter((event) => event.reason === 'PhaseChanged').map((event) => event.message);
    expect(phaseChanges.slice(-2)).toEqual([expect.stringMatching(/→ Provisioning$/), 'Provisioning → Running']);
    const running = events.findIndex((event) => event.message === 'Provisioning → Running');
    expect(events.findIndex((event) => event.reason === 'Healthy')).toBeGreaterThan(running);

    // The address is the guest's own (agent) and the one the host's DHCP leased to the VM's NIC. On
    // lab2 ARP may have given it before the vendor-data script started the agent.
    await proxy.waitForAgent(5 * 60_000);
    expect(await guestIPv4Addresses(proxy.domain)).toEqual([ready.status.ip]);
    expect(leasedAddress(proxy.host, await domainMac(proxy.domain))).toBe(ready.status.ip);
    expect(await virsh(['domifaddr', proxy.domain.name, '--source', 'agent'], proxy.host)).toContain(`${ready.status.ip}/24`);
    expect(ready.status.ip?.startsWith(proxy.host.vmNetwork.replace(/0\/24$/, ''))).toBe(true);
  });

  it('received its user-data byte for byte and ran the vendor-data script, which started the agent', async () => {
    const { domain } = proxy;
    const seeded = await guestShell(
      domain,
      'mkdir -p /run/kvm2-seed && (mountpoint -q /run/kvm2-seed || mount -o ro /dev/sr0 /run/kvm2-seed) && cat /run/kvm2-seed/user-data',
    );
    expect(seeded.equals(Buffer.from(cloudInit.userData, 'utf8')), seeded.toString('utf8')).toBe(true);
    const consumed = await guestShell(domain, 'cat /var/lib/cloud/instance/user-data.txt');
    expect(consumed.equals(Buffer.from(cloudInit.userData, 'utf8'))).toBe(true);
    expect((await guestShell(domain, `cat ${markerPath}`)).toString()).toBe(`${cloudInit.marker}\n`);

    const vendorData = await guestShell(domain, 'cat /var/lib/cloud/instance/vendor-data.txt');
    expect(vendorData.toString('utf8')).toBe(buildVendorData({ installGuestAgent: true }));
    const output = (await guestShell(domain, 'cat /var/log/cloud-init-output.log')).toString();
    expect(output).toContain('kvm2: qemu-guest-agent step finished');
    expect((await guestShell(domain, 'cloud-init status')).toString()).toContain('status: done');
    // The image masks the agent's udev autostart: it runs because the vendor-data script started it.
    expect((await guestShell(domain, 'readlink /etc/udev/rules.d/60-qemu-guest-agent.rules')).toString().trim()).toBe('/dev/null');
  });

  it('is Ready because the probe went through Squid in the guest to the lab image server', async () => {
    expect(ready.status.healthy).toBe(true);
    expect(ready.status.conditions).toContainEqual(expect.objectContaining({ type: 'Healthy', status: 'True', reason: 'TargetReachable' }));
    expect((await imageServerStats(session().lab))['/probe']).toBeGreaterThan(0);
    const accessLog = (await guestShell(proxy.domain, 'cat /var/log/squid/access.log')).toString();
    expect(accessLog).toContain(`GET ${session().probeUrl}`);
  });

  it('is deleted through the API, leaving nothing of it on the host but the cached base image', async () => {
    expect(await proxy.delete()).toEqual([]);
    const base = `base-${guestProviders.withAgent}-${guestImageKeys(session().image).uefi}.qcow2`;
    expect(await poolVolumes(proxy.host, base)).toEqual([base, `${base}.sha256`]);
  });
});
