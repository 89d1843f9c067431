// The providers config reloaded in the middle of a base image download (the image server's slow
// variant) with the entry changed: the new provider shares the old one's locks, so a second Proxy
// for the same image waits for the upload in flight instead of deleting the half-written base.
// One download, both Proxies get their domains, and the base is complete (its marker written).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { instanceName } from '@/server/control/names';
import type { Runtime } from '@/server/runtime';
import { imageServerStats, loadLab, virsh, type Lab } from './harness/lab';
import { ControlLabRun, domainState, labProxy, recordedInstance, type EntrySpec } from './control-support';

let lab: Lab;
let run: ControlLabRun;
let runtime: Runtime;
let entry: string;
let slowUrl: string;

const slowPath = '/variants/slow.qcow2';
const entrySpec = (machineTypes: Record<string, { vcpus: number; memoryMiB: number }>): EntrySpec => ({
  suffix: 'reload',
  // With sha256 the provider writes the marker only for the complete, matching image.
  kvm2: { images: { slow: { url: slowUrl, sha256: lab.imageServer.image.sha256 } }, machineTypes },
});

beforeAll(async () => {
  lab = loadLab();
  run = new ControlLabRun(lab);
  entry = run.entryName('reload');
  // 4 KiB every 200 ms: the lab image takes about ten seconds, time enough to reload mid-way.
  slowUrl = `${lab.imageServer.url}${slowPath}?chunk=4096&intervalMs=200`;
  runtime = await run.start({ entries: [entrySpec({ small: { vcpus: 1, memoryMiB: 256 } })] });
});
afterAll(async () => {
  await run?.cleanUp();
});

const proxy = (name: string) => ({ ...labProxy({ name, provider: entry, zone: 'lab1' }), placement: { zone: 'lab1', machineType: 'small', image: 'slow' } });

describe('a config reload during a download', () => {
  it('ends with one download, the base intact and complete, and both Proxies provisioned', async () => {
    const base = `base-${entry}-slow.qcow2`;
    // GETs only: each Create's pool-space precheck sends a HEAD while the base has no marker.
    const gets = async () => (await imageServerStats(lab, true))[`GET ${slowPath}`] ?? 0;
    const getsBefore = await gets();
    const first = run.proxyName('first');
    const second = run.proxyName('second');
    await runtime.services.proxies.create(proxy(first));
    await expect.poll(() => run.baseVolumes(), { message: 'the base volume to be uploading', timeout: 60_000, interval: 250 }).toContain(base);
    const providerBefore = runtime.services.providers.get(entry);

    run.writeConfig([entrySpec({ small: { vcpus: 1, memoryMiB: 256 }, large: { vcpus: 2, memoryMiB: 512 } })]);
    expect(await runtime.services.config.reload()).toBe(true);
    expect(runtime.services.providers.get(entry)).not.toBe(providerBefore);
    // The download is still under way after the reload: no marker yet.
    expect(await run.baseVolumes()).toEqual([base]);

    await runtime.services.proxies.create(proxy(second));
    for (const name of [first, second]) {
      await recordedInstance(runtime, name);
      await vi.waitFor(async () => expect(await domainState(instanceName(name)), `${instanceName(name)} to run`).toBe('running'), {
        timeout: 60_000,
        interval: 250,
      });
    }
    expect((await gets()) - getsBefore).toBe(1);
    expect(await run.baseVolumes()).toEqual([base, `${base}.sha256`]);
    const markerCopy = join(mkdtempSync(join(tmpdir(), 'reload-marker-')), 'marker');
    await virsh(['vol-download', '--pool', lab.pool.name, `${base}.sha256`, markerCopy]);
    expect(readFileSync(markerCopy, 'latin1').trim()).toBe(lab.imageServer.image.sha256);
    rmSync(dirname(markerCopy), { recursive: true, force: true });
    for (const name of [first, second]) expect((await runtime.services.proxies.events(name)).some((event) => event.reason === 'Failed')).toBe(false);
  });
});
