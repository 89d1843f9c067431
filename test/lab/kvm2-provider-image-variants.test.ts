// The image fetch against the lab image server's awkward variants, through the real provider on
// the real libvirtd: each variant gives its error class (chunked and empty are permanent naming
// the URL, 404 permanent, 429 and 503 transient), HEAD refused with 405 still works, a truncated
// body and a transfer the caller stops leave no marker (and the next Create succeeds), and a
// changed sha256 on a cached image is refused without touching the base. Redirects (once, twice,
// across ports) are followed to the image; a redirect loop is permanent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorClassOf } from '@/server/providers/errors';
import type { Kvm2Provider } from '@/server/providers/kvm2/provider';
import { urlImageKey } from '@/server/providers/kvm2/volume';
import { loadLab, virsh, type Lab } from './harness/lab';
import { failureOf, Kvm2LabRun } from './kvm2-provider-support';

let lab: Lab;
let run: Kvm2LabRun;
let provider: Kvm2Provider;

beforeAll(() => {
  lab = loadLab();
  run = new Kvm2LabRun(lab);
  provider = run.provider();
});
afterAll(async () => {
  await run.cleanUp();
});

const variant = (path: string) => `${lab.imageServer.url}/variants/${path}`;
const request = (name: string, image: string) => ({
  name,
  uid: `uid-${name}`,
  placement: { zone: 'lab1', machineType: 'small', image },
  cloudInit: '#cloud-config\n',
  port: 3128,
});
const volumesOf = async (url: string) => (await run.baseVolumes()).filter((name) => name.includes(urlImageKey(url)));

describe('image server variants', () => {
  it.each([
    ['chunked.qcow2', 'permanent'],
    ['empty.qcow2', 'permanent'],
    ['404', 'permanent'],
    ['429', 'transient'],
    ['503', 'transient'],
  ])('%s gives %s, naming the URL, and creates nothing', async (path, errorClass) => {
    const name = run.domainName(path.replace(/\W/g, ''));
    const error = await failureOf(provider.create(request(name, variant(path))));
    expect(errorClassOf(error)).toBe(errorClass);
    expect(error?.message).toContain(variant(path));
    expect(await volumesOf(variant(path))).toEqual([]);
    expect((await run.volumes()).filter((volume) => volume.startsWith(name))).toEqual([]);
  });

  it('head-405: HEAD refused, GET serves the image; Create succeeds', async () => {
    const name = run.domainName('head405');
    await provider.create(request(name, variant('head-405.qcow2')));
    expect((await virsh(['domstate', name])).trim()).toBe('running');
    expect(await volumesOf(variant('head-405.qcow2'))).toHaveLength(2);
    await provider.delete(`hosts/lab1/domains/${name}`);
  });

  it('truncated: transient, and neither marker nor base is left', async () => {
    const name = run.domainName('truncated');
    const error = await failureOf(provider.create(request(name, variant('truncated.qcow2'))));
    expect(errorClassOf(error)).toBe('transient');
    expect(error?.message).toContain('truncated.qcow2');
    expect(await volumesOf(variant('truncated.qcow2'))).toEqual([]);
  });

  it('slow and stopped by the caller: no marker; the next Create succeeds', async () => {
    const url = variant('slow.qcow2?chunk=16384&intervalMs=100');
    const name = run.domainName('slow');
    const controller = new AbortController();
    const stopped = failureOf(provider.create(request(name, url), { signal: controller.signal }));
    await expect.poll(() => provider.downloads.list().some((entry) => entry.doneBytes > 0), { timeout: 20_000, interval: 10 }).toBe(true);
    controller.abort(new Error('reconcile cancelled'));
    expect(errorClassOf(await stopped)).toBe('transient');
    const markers = (await volumesOf(url)).filter((volume) => volume.endsWith('.sha256'));
    expect(markers).toEqual([]);

    await provider.create(request(name, url));
    expect((await virsh(['domstate', name])).trim()).toBe('running');
    expect(await volumesOf(url)).toHaveLength(2);
    await provider.delete(`hosts/lab1/domains/${name}`);
  });
});

describe('image server redirects', () => {
  it.each(['redirect-once.qcow2', 'redirect-twice.qcow2', 'redirect-cross-port.qcow2'])(
    '%s: followed for the precheck and the download; Create succeeds with the image behind it',
    async (path) => {
      const name = run.domainName(path.replace(/\W/g, ''));
      await provider.create(request(name, variant(path)));
      expect((await virsh(['domstate', name])).trim()).toBe('running');
      // Base and marker: the marker is written only once length and digest checked out.
      expect(await volumesOf(variant(path))).toHaveLength(2);
      await provider.delete(`hosts/lab1/domains/${name}`);
    },
  );

  it('redirect-loop: permanent, naming the chain, and creates nothing', async () => {
    const name = run.domainName('redirectloop');
    const error = await failureOf(provider.create(request(name, variant('redirect-loop.qcow2'))));
    expect(errorClassOf(error)).toBe('permanent');
    expect(error?.message).toContain(`redirects in a loop: ${variant('redirect-loop.qcow2')} -> ${variant('redirect-loop-b.qcow2')}`);
    expect(await volumesOf(variant('redirect-loop.qcow2'))).toEqual([]);
    expect((await run.volumes()).filter((volume) => volume.startsWith(name))).toEqual([]);
  });
});

describe('a changed sha256', () => {
  it('on a cached image is refused permanently by name, and the base stays as it was', async () => {
    const name = run.domainName('sha');
    await provider.create(request(name, 'lab'));
    await provider.delete(`hosts/lab1/domains/${name}`);
    const base = `base-${run.entryName}-lab.qcow2`;
    const before = await virsh(['vol-info', '--pool', lab.pool.name, base]);

    const changed = run.provider({
      images: { lab: { url: `${lab.imageServer.url}/images/lab.qcow2`, sha256: 'b'.repeat(64) } },
    });
    const error = await failureOf(changed.create(request(run.domainName('sha2'), 'lab')));
    expect(errorClassOf(error)).toBe('permanent');
    expect(error?.message).toContain(base);
    expect(error?.message).toContain(lab.imageServer.image.sha256);
    expect(await virsh(['vol-info', '--pool', lab.pool.name, base])).toBe(before);
    expect(await run.baseVolumes()).toEqual(expect.arrayContaining([base, `${base}.sha256`]));
  });
});
