// Volumes and streams against the lab's real pool: create, 64 MiB up, the same bytes down.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLibvirtError, type LibvirtClient, type StoragePool, type StorageVol, UploadSourceError } from '@/server/libvirt';
import { type Lab, loadLab, virsh } from './harness/lab';
import { openOverSsh, removeRpcTestLeftovers, uniqueName } from './rpc-lab-support';

const MiB = 1024 * 1024;

let lab: Lab;
let libvirt: LibvirtClient;
let pool: StoragePool;

beforeAll(async () => {
  lab = loadLab();
  await removeRpcTestLeftovers(lab.pool.name);
  libvirt = await openOverSsh(lab);
  pool = await libvirt.storagePoolLookupByName({ name: lab.pool.name });
});

afterAll(async () => {
  await libvirt?.close();
  await removeRpcTestLeftovers(lab.pool.name);
});

const rawVolumeXml = (name: string, bytes: number) =>
  `<volume><name>${name}</name><capacity unit="bytes">${bytes}</capacity><target><format type="raw"/></target></volume>`;

/** `total` random bytes in 1 MiB chunks, hashed as they are produced; optionally failing part way. */
function randomSource(total: number, options: { failAt?: number } = {}) {
  const hash = createHash('sha256');
  let produced = 0;
  async function* chunks(): AsyncGenerator<Buffer> {
    while (produced < total) {
      if (options.failAt !== undefined && produced >= options.failAt) throw new Error('source broke');
      const chunk = randomBytes(Math.min(MiB, total - produced));
      hash.update(chunk);
      produced += chunk.length;
      yield chunk;
    }
  }
  return { source: chunks(), digest: () => hash.digest('hex') };
}

async function sha256Of(chunks: AsyncIterable<Buffer>): Promise<{ digest: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of chunks) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { digest: hash.digest('hex'), bytes };
}

describe('volumes and streams', () => {
  let vol: StorageVol;
  const name = uniqueName('vol');

  it('creates a volume that virsh then sees, with its path and info', async () => {
    vol = await libvirt.storageVolCreateXml({ pool, xml: rawVolumeXml(name, 64 * MiB) });
    expect(vol).toMatchObject({ pool: lab.pool.name, name });
    expect(await libvirt.storageVolGetPath({ vol })).toBe((await virsh(['vol-path', '--pool', lab.pool.name, name])).trim());
    expect(await libvirt.storageVolGetInfo({ vol })).toMatchObject({ capacity: 64 * MiB });
    expect(await libvirt.storageVolGetXmlDesc({ vol })).toContain(`<name>${name}</name>`);
    expect(await libvirt.storageVolLookupByName({ pool, name })).toEqual(vol);
    expect((await libvirt.storagePoolListAllVolumes({ pool })).map((v) => v.name)).toContain(name);
  });

  it('uploads 64 MiB of random bytes and downloads the same bytes back', async () => {
    const { source, digest } = randomSource(64 * MiB);
    const result = await libvirt.storageVolUpload({ vol, source, length: 64 * MiB, timeoutMs: 120_000 });
    expect(result.bytesSent).toBe(64 * MiB);
    const uploaded = digest();
    const downloaded = await sha256Of(libvirt.storageVolDownload({ vol, timeoutMs: 120_000 }));
    expect(downloaded).toEqual({ digest: uploaded, bytes: 64 * MiB });
  });

  it('a source that fails part way ends the upload cleanly and reports the error after; the connection stays', async () => {
    const { source } = randomSource(8 * MiB, { failAt: 3 * MiB });
    const err = await libvirt.storageVolUpload({ vol, source, timeoutMs: 60_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UploadSourceError);
    expect(err).toMatchObject({ bytesSent: 3 * MiB, cause: new Error('source broke') });
    expect(libvirt.alive).toBe(true);
    const head = await sha256Of(libvirt.storageVolDownload({ vol, length: MiB }));
    expect(head.bytes).toBe(MiB);
  });

  it('deletes the volume; looking it up afterwards is ErrNoStorageVol', async () => {
    await libvirt.storageVolDelete({ vol });
    const err = await libvirt.storageVolLookupByName({ pool, name }).catch((e: unknown) => e);
    expect(isLibvirtError(err, 'ErrNoStorageVol')).toBe(true);
  });

  it('creating a volume that exists is ErrStorageVolExist', async () => {
    const twice = uniqueName('vol');
    await libvirt.storageVolCreateXml({ pool, xml: rawVolumeXml(twice, MiB) });
    const err = await libvirt.storageVolCreateXml({ pool, xml: rawVolumeXml(twice, MiB) }).catch((e: unknown) => e);
    expect(isLibvirtError(err, 'ErrStorageVolExist')).toBe(true);
  });
});
