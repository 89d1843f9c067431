// The same guest image under `firmware: bios` (SeaBIOS, GRUB from the BIOS boot partition): the
// Proxy reaches Ready through the HTTP API, the guest really booted without UEFI, and deleting it
// leaves nothing behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProxyView } from '@/lib/proxy-spec';
import { virsh } from '@/test/lab/harness/lab';
import { guestIPv4Addresses, guestShell } from './harness/guest-agent';
import { guestImageKeys, guestMachineType, guestProviders } from './harness/guest-lab';
import { type GuestSession, openGuestSession } from './harness/guest-session';
import { instanceTraces, markerPath, squidCloudInit } from './harness/proxy-guest';
import { milestonesFromEvents, PhaseTimeline, waitForProxy } from './harness/proxy-watch';
import { recordGuestTimings } from './harness/timings';

const name = 'guest-bios';
const cloudInit = squidCloudInit();

describe('a Proxy on the real Debian guest booted under BIOS, through the HTTP API', () => {
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
    recordGuestTimings(session.lab, 'bios', { ...timings, ...timeline?.toJSON() });
  });

  it('boots with SeaBIOS, becomes Ready, and is deleted without a trace', async () => {
    const { api, lab, image } = session;
    timeline = new PhaseTimeline();
    const created = await api.call({
      method: 'POST',
      path: '/api/proxies',
      body: {
        name,
        mode: 'Managed',
        provider: guestProviders.withAgent,
        placement: { machineType: guestMachineType, image: guestImageKeys(image).bios },
        cloudInit: cloudInit.userData,
      },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const ready = (await waitForProxy({ api, name, what: 'Ready', until: (view) => view?.status.phase === 'Ready', timeoutMs: 20 * 60_000, timeline })) as ProxyView;
    const instance = ready.instanceName ?? '';
    Object.assign(timings, milestonesFromEvents(await api.events(name)));

    const xml = await virsh(['dumpxml', instance]);
    expect(xml).not.toMatch(/firmware=["']efi|<loader/);
    expect((await guestShell(instance, 'test -d /sys/firmware/efi && echo uefi || echo bios')).toString().trim()).toBe('bios');
    expect(await guestIPv4Addresses(instance)).toEqual([ready.status.ip]);
    expect((await guestShell(instance, `cat ${markerPath}`)).toString()).toBe(`${cloudInit.marker}\n`);

    const started = performance.now();
    expect((await api.call({ method: 'DELETE', path: `/api/proxies/${name}` })).status).toBe(202);
    await waitForProxy({ api, name, what: 'deletion', until: (view) => view === undefined, timeoutMs: 5 * 60_000 });
    timings.deleteSeconds = Math.round((performance.now() - started) / 100) / 10;
    expect(await instanceTraces(lab, instance)).toEqual([]);
  });
});
