// The same guest image under `firmware: bios` (SeaBIOS, GRUB from the BIOS boot partition) on lab1:
// the Proxy reaches Ready through the HTTP API, the guest really booted without UEFI, and deleting
// it leaves nothing behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { virsh } from '@/test/lab/harness/lab';
import { guestIPv4Addresses, guestShell } from './harness/guest-agent';
import { guestProviders } from './harness/guest-lab';
import { GuestProxy, guestSessionForFile } from './harness/guest-proxy';
import { markerPath, squidCloudInit } from './harness/proxy-guest';

const cloudInit = squidCloudInit();
const session = guestSessionForFile();

describe('a Proxy on the real Debian guest booted under BIOS, through the HTTP API', () => {
  let proxy: GuestProxy;

  beforeAll(() => {
    proxy = new GuestProxy(session(), { name: 'guest-bios', host: 'lab1', provider: guestProviders.withAgent, firmware: 'bios', cloudInit, variant: 'bios' });
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it('boots with SeaBIOS, becomes Ready, and is deleted without a trace', async () => {
    await proxy.create();
    const ready = await proxy.waitForReady(20 * 60_000);
    await proxy.noteMilestones();
    const { domain } = proxy;

    const xml = await virsh(['dumpxml', domain.name], domain.host);
    expect(xml).not.toMatch(/firmware=["']efi|<loader/);
    expect((await guestShell(domain, 'test -d /sys/firmware/efi && echo uefi || echo bios')).toString().trim()).toBe('bios');
    await proxy.waitForAgent(5 * 60_000);
    expect(await guestIPv4Addresses(domain)).toEqual([ready.status.ip]);
    expect((await guestShell(domain, `cat ${markerPath}`)).toString()).toBe(`${cloudInit.marker}\n`);

    expect(await proxy.delete()).toEqual([]);
  });
});
