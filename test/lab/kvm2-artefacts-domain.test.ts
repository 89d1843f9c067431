// What kvm2 writes to a host, tried on the lab's real libvirtd (through root's virsh, since the
// point here is the artefacts, not the RPC client): the volume XMLs create a base that holds the
// uploaded image verbatim, a 64-byte marker, a seed, and a qcow2 overlay backed by the base's
// path; the domain XML defines and starts under software emulation with either firmware, and
// libvirt hands the kvm2 mark back intact.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatCreated, metadataURI, parseMetadataXML } from '@/server/providers/kvm2/metadata';
import { buildSeedISO } from '@/server/providers/kvm2/seed';
import {
  baseVolumeName,
  baseVolumeXML,
  markerVolumeName,
  markerVolumeXML,
  overlayVolumeName,
  overlayVolumeXML,
  seedVolumeName,
  seedVolumeXML,
} from '@/server/providers/kvm2/volume';
import { buildDomainXML } from '@/server/providers/kvm2/xml';
import { attributeOf, childElement, childElements, childTags, parseXml } from '@/server/providers/kvm2/xml-codec';
import { parseDomainXML, parseVolumeXML } from '@/server/providers/kvm2/xml-parse';
import { type Lab, loadLab, removeDomain, removeVolume, runCommand, virsh } from './harness/lab';

const run = `artefacttest-${randomBytes(3).toString('hex')}`;
const scratch = mkdtempSync(join(tmpdir(), 'kvm2-artefacts-'));
const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

let lab: Lab;
const pool = () => lab.pool.name;
const createdVolumes: string[] = [];
const definedDomains: string[] = [];

async function createVolume(xml: string, name: string): Promise<string> {
  const file = join(scratch, `${name}.xml`);
  writeFileSync(file, xml);
  await virsh(['vol-create', pool(), file]);
  createdVolumes.push(name);
  return (await virsh(['vol-path', '--pool', pool(), name])).trim();
}

async function upload(volume: string, data: Uint8Array): Promise<void> {
  const file = join(scratch, `${volume}.upload`);
  writeFileSync(file, data);
  await virsh(['vol-upload', '--pool', pool(), volume, file]);
}

async function download(volume: string): Promise<Buffer> {
  const file = join(scratch, `${volume}.download`);
  await virsh(['vol-download', '--pool', pool(), volume, file]);
  return readFileSync(file);
}

async function qemuImgInfo(path: string): Promise<Record<string, unknown>> {
  const result = await runCommand(['qemu-img', 'info', '-U', '--output=json', path]);
  if (result.exitCode !== 0) throw new Error(`qemu-img info ${path}: ${result.stderr}`);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

// The base image as the image cache would leave it: created from its volume XML with the
// download's length, uploaded verbatim, pool refreshed.
const base = { name: '', path: '', bytes: Buffer.alloc(0) };

beforeAll(async () => {
  lab = loadLab();
  base.bytes = readFileSync(lab.imageServer.image.path);
  base.name = baseVolumeName({ provider: run, key: 'lab', format: 'qcow2' });
  base.path = await createVolume(baseVolumeXML({ name: base.name, sizeBytes: base.bytes.length }), base.name);
  await upload(base.name, base.bytes);
  await virsh(['pool-refresh', pool()]);
});

afterAll(async () => {
  try {
    for (const domain of definedDomains.reverse()) await removeDomain(domain);
    for (const volume of createdVolumes.reverse()) await removeVolume(pool(), volume);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

describe('kvm2 volumes on a real pool', () => {
  it('holds the uploaded image verbatim in the base volume, which the refresh reports as qcow2', async () => {
    expect(sha256(readFileSync(base.path))).toBe(lab.imageServer.image.sha256);
    const info = await qemuImgInfo(base.path);
    expect(info).toMatchObject({ format: 'qcow2' });
    expect(parseVolumeXML(await virsh(['vol-dumpxml', '--pool', pool(), base.name]))).toMatchObject({
      name: base.name,
      path: base.path,
      format: 'qcow2',
      capacityBytes: info['virtual-size'],
    });
  });

  it('creates a 64-byte raw marker that holds the digest', async () => {
    const marker = markerVolumeName(base.name);
    await createVolume(markerVolumeXML(base.name), marker);
    const digest = Buffer.from(lab.imageServer.image.sha256, 'ascii');
    await upload(marker, digest);
    expect((await download(marker)).toString('ascii')).toBe(lab.imageServer.image.sha256);
    expect(parseVolumeXML(await virsh(['vol-dumpxml', '--pool', pool(), marker]))).toMatchObject({ format: 'raw', capacityBytes: 64 });
  });

  it('creates a qcow2 overlay whose backing file is the base path', async () => {
    const domain = `${run}-overlay`;
    const overlay = overlayVolumeName(domain);
    const path = await createVolume(overlayVolumeXML({ domain, diskSizeGb: 2, basePath: base.path, baseFormat: 'qcow2' }), overlay);
    expect(await qemuImgInfo(path)).toMatchObject({
      format: 'qcow2',
      'virtual-size': 2 * 1024 ** 3,
      'backing-filename': base.path,
      'backing-filename-format': 'qcow2',
    });
    expect(parseVolumeXML(await virsh(['vol-dumpxml', '--pool', pool(), overlay]))).toMatchObject({
      name: overlay,
      format: 'qcow2',
      capacityBytes: 2 * 1024 ** 3,
      backingPath: base.path,
    });
  });

  it('creates a raw seed volume that holds the ISO byte for byte', async () => {
    const domain = `${run}-seed`;
    const iso = buildSeedISO({ domain, cloudInit: '#cloud-config\n', installGuestAgent: true });
    const seed = seedVolumeName(domain);
    await createVolume(seedVolumeXML({ domain, sizeBytes: iso.length }), seed);
    await upload(seed, iso);
    expect(sha256(await download(seed))).toBe(sha256(iso));
  });
});

describe.each(['uefi', 'bios'] as const)('kvm2 domain with %s firmware', (firmware) => {
  const domain = `${run}-${firmware}`;
  const mark = { managed: true, uid: `uid-${run}`, created: formatCreated(new Date()) };

  it('defines, starts under emulation and reads back', async () => {
    const overlayPath = await createVolume(overlayVolumeXML({ domain, diskSizeGb: 1, basePath: base.path, baseFormat: 'qcow2' }), overlayVolumeName(domain));
    const iso = buildSeedISO({ domain, cloudInit: '#cloud-config\n', installGuestAgent: true });
    const seedPath = await createVolume(seedVolumeXML({ domain, sizeBytes: iso.length }), seedVolumeName(domain));
    await upload(seedVolumeName(domain), iso);

    const xml = buildDomainXML({
      name: domain,
      virtType: 'qemu',
      memoryMiB: 256,
      vcpus: 1,
      firmware,
      overlayPath,
      base: { path: base.path, format: 'qcow2' },
      seedPath,
      bridge: lab.bridge,
      metadata: mark,
    });
    const file = join(scratch, `${domain}.xml`);
    writeFileSync(file, xml);
    await virsh(['define', file]);
    definedDomains.push(domain);
    await virsh(['start', domain]);
    expect((await virsh(['domstate', domain])).trim()).toBe('running');

    expect(parseMetadataXML(await virsh(['metadata', domain, '--uri', metadataURI]))).toEqual(mark);
    const live = parseDomainXML(await virsh(['dumpxml', domain]));
    expect(live).toMatchObject({
      name: domain,
      virtType: 'qemu',
      firmware,
      cpuMode: 'maximum',
      vcpus: 1,
      memoryBytes: 256 * 1024 ** 2,
      metadata: mark,
      graphicsCount: 0,
    });
    expect(live.disks.map((disk) => ({ type: disk.type, device: disk.device, source: disk.sourceFile, target: disk.targetDev }))).toEqual([
      { type: 'file', device: 'disk', source: overlayPath, target: 'vda' },
      { type: 'file', device: 'cdrom', source: seedPath, target: 'sda' },
    ]);
    // The running domain keeps the chain as given: overlay, then the base, then nothing probed.
    const vda = childElements(childElement(childElement(parseXml(await virsh(['dumpxml', domain]), 'dumpxml'), 'domain'), 'devices'), 'disk')[0];
    const backing = childElement(vda, 'backingStore');
    expect(attributeOf(childElement(backing, 'source'), 'file')).toBe(base.path);
    const end = childElement(backing, 'backingStore');
    expect(end && childTags(end)).toEqual([]);
    expect(live.interfaces[0]).toMatchObject({ type: 'bridge', bridge: lab.bridge, model: 'virtio' });
    expect(live.channels).toContain('org.qemu.guest_agent.0');
    if (firmware === 'uefi') expect(live.secureBoot).toBe(false);
  });
});
