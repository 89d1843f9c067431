// The seed as cloud-init's NoCloud reader sees it: mounted by Linux's own isofs (in a small QEMU
// guest, since this machine's kernel has no iso9660 driver). Names must come out exactly as
// user-data, meta-data and vendor-data, with identical bytes, and the label must be cidata.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMetaData, buildSeedISO, buildVendorData, type SeedOptions } from '@/server/providers/kvm2/seed';
import { prepareIsofsGuest, readWithLinuxIsofs, type GuestReport } from './kvm2-artefacts-isofs-guest';

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');
const bytes = (data: Uint8Array | string) => (typeof data === 'string' ? Buffer.from(data) : data);

const cloudConfig = '#cloud-config\npackages: [squid]\n';
const seeds: { what: string; options: SeedOptions }[] = [
  { what: 'cloud-config, agent script', options: { domain: 'proxy-text', cloudInit: cloudConfig, installGuestAgent: true } },
  {
    what: 'gzipped user-data, multipart vendor-data',
    options: {
      domain: 'proxy-gzip',
      cloudInit: gzipSync(Buffer.from(cloudConfig.repeat(100))),
      installGuestAgent: true,
      vendorData: '#cloud-config\nntp: {enabled: true}\n',
    },
  },
  { what: '0-byte user-data, empty vendor-data', options: { domain: 'proxy-empty', cloudInit: new Uint8Array(0), installGuestAgent: false } },
  { what: '1 MiB binary user-data', options: { domain: 'proxy-large', cloudInit: randomBytes(1024 * 1024), installGuestAgent: true } },
];

const dir = mkdtempSync(join(tmpdir(), 'seed-isofs-'));
let report: GuestReport;

beforeAll(async () => {
  const kit = prepareIsofsGuest();
  const paths = seeds.map((seed, index) => {
    const path = join(dir, `seed-${index}.iso`);
    writeFileSync(path, buildSeedISO(seed.options));
    return path;
  });
  report = await readWithLinuxIsofs(kit, paths);
}, 300_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('seed ISO under Linux isofs', () => {
  it('loads the isofs driver and reads Rock Ridge, not Joliet', () => {
    expect(report.insmodFailures).toEqual([]);
    expect(report.devices).toHaveLength(seeds.length);
    expect(report.dmesg.join('\n')).toMatch(/RRIP_1991A/);
  });

  it.each(seeds.map((seed, index) => ({ ...seed, index })))('shows exactly the three files with identical bytes: $what', ({ options, index }) => {
    const device = report.devices[index];
    expect(device?.mounted).toBe(true);
    expect(device?.blkid).toMatch(/LABEL="cidata"/);
    expect(device?.blkid).toMatch(/TYPE="iso9660"/);
    expect(device?.entries.sort()).toEqual(['.', '..', 'meta-data', 'user-data', 'vendor-data']);
    const expected = [
      { name: 'meta-data', data: bytes(buildMetaData(options.domain)) },
      { name: 'user-data', data: bytes(options.cloudInit) },
      { name: 'vendor-data', data: bytes(buildVendorData(options)) },
    ].map(({ name, data }) => ({ name, size: data.length, mode: '444', sha256: sha256(data) }));
    expect(device?.files.sort((a, b) => a.name.localeCompare(b.name))).toEqual(expected);
  });
});
