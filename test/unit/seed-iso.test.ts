// The seed read back by independent ISO 9660 readers: genisoimage's isoinfo (primary volume,
// Rock Ridge and Joliet trees) and util-linux's blkid. Linux's own isofs reads it in
// test/lab/kvm2-artefacts-seed-isofs.test.ts (this machine's kernel has no isofs).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { buildSeedISO, buildVendorData, guestAgentScript } from '@/server/providers/kvm2/seed';
import { requireTool } from '../support/system-tool';

const dir = mkdtempSync(join(tmpdir(), 'seed-iso-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let counter = 0;
function writeSeed(iso: Uint8Array): string {
  counter += 1;
  const path = join(dir, `seed-${counter}.iso`);
  writeFileSync(path, iso);
  return path;
}

// Resolved per call, so a machine without them fails every test here naming the package to install.
const debianPackageOf = { isoinfo: 'genisoimage', blkid: 'util-linux' } as const;
type Tool = keyof typeof debianPackageOf;
const run = (command: Tool, args: string[]) =>
  execFileSync(requireTool(command, debianPackageOf[command]), args, { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 });
const text = (command: Tool, args: string[]) => run(command, args).toString('utf8');
const listing = (path: string, tree: '-R' | '-J') => text('isoinfo', [tree, '-f', '-i', path]).split('\n').filter(Boolean).sort();
const extract = (path: string, tree: '-R' | '-J', name: string) => run('isoinfo', [tree, '-x', `/${name}`, '-i', path]);

const cloudConfig = '#cloud-config\npackages: [squid]\nruncmd:\n  - echo "a & b < c"\n';
const userDataCases = [
  { what: 'a cloud-config', userData: Buffer.from(cloudConfig) },
  { what: 'gzipped user-data', userData: gzipSync(Buffer.from(cloudConfig.repeat(50))) },
  { what: 'arbitrary binary bytes', userData: randomBytes(70_001) },
  { what: '0 bytes', userData: Buffer.alloc(0) },
  { what: '1 MiB', userData: randomBytes(1024 * 1024) },
];

describe('seed ISO', () => {
  it('is labelled cidata for isoinfo and blkid', () => {
    const path = writeSeed(buildSeedISO({ domain: 'proxy-abc', cloudInit: cloudConfig, installGuestAgent: true }));
    expect(text('isoinfo', ['-d', '-i', path])).toMatch(/^Volume id: cidata$/m);
    expect(text('blkid', ['-p', '-o', 'value', '-s', 'LABEL', path]).trim()).toBe('cidata');
    expect(text('blkid', ['-p', '-o', 'value', '-s', 'TYPE', path]).trim()).toBe('iso9660');
  });

  it('announces Rock Ridge and Joliet', () => {
    const path = writeSeed(buildSeedISO({ domain: 'proxy-abc', cloudInit: cloudConfig, installGuestAgent: true }));
    const description = text('isoinfo', ['-d', '-i', path]);
    expect(description).toMatch(/Rock Ridge signatures version 1 found/);
    expect(description).toMatch(/Joliet with UCS level 3 found/);
  });

  it.each(['-R', '-J'] as const)('lists exactly the three files in the %s tree', (tree) => {
    const path = writeSeed(buildSeedISO({ domain: 'proxy-abc', cloudInit: cloudConfig, installGuestAgent: true }));
    expect(listing(path, tree)).toEqual(['/meta-data', '/user-data', '/vendor-data']);
  });

  it.each(userDataCases)('carries $what as user-data byte for byte', ({ userData }) => {
    const path = writeSeed(buildSeedISO({ domain: 'proxy-abc', cloudInit: userData, installGuestAgent: true }));
    expect(Buffer.compare(extract(path, '-R', 'user-data'), userData)).toBe(0);
    expect(Buffer.compare(extract(path, '-J', 'user-data'), userData)).toBe(0);
    expect(listing(path, '-R')).toEqual(['/meta-data', '/user-data', '/vendor-data']);
  });

  it('writes meta-data with the domain as instance-id and local-hostname', () => {
    const path = writeSeed(buildSeedISO({ domain: 'proxy-abc', cloudInit: '', installGuestAgent: false }));
    expect(extract(path, '-R', 'meta-data').toString('utf8')).toBe('instance-id: proxy-abc\nlocal-hostname: proxy-abc\n');
  });

  it.each([
    { what: 'the agent script alone', options: { installGuestAgent: true }, expected: guestAgentScript },
    {
      what: 'the admin document alone',
      options: { installGuestAgent: false, vendorData: '#cloud-config\nntp: {enabled: true}\n' },
      expected: '#cloud-config\nntp: {enabled: true}\n',
    },
    { what: 'nothing', options: { installGuestAgent: false }, expected: '' },
    {
      what: 'a multipart of both',
      options: { installGuestAgent: true, vendorData: '#cloud-config\nntp: {enabled: true}\n' },
      expected: buildVendorData({ installGuestAgent: true, vendorData: '#cloud-config\nntp: {enabled: true}\n' }),
    },
  ])('writes vendor-data as $what', ({ options, expected }) => {
    const path = writeSeed(buildSeedISO({ domain: 'proxy-abc', cloudInit: cloudConfig, ...options }));
    expect(extract(path, '-R', 'vendor-data').toString('utf8')).toBe(expected);
  });

  it('is byte-identical for the same inputs and creation time', () => {
    const created = new Date('2026-09-16T17:42:11Z');
    const options = { domain: 'proxy-abc', cloudInit: cloudConfig, installGuestAgent: true, created };
    expect(Buffer.compare(buildSeedISO(options), buildSeedISO(options))).toBe(0);
  });

  it('differs only in time stamps when built at another time', () => {
    const options = { domain: 'proxy-abc', cloudInit: cloudConfig, installGuestAgent: true };
    const first = Buffer.from(buildSeedISO({ ...options, created: new Date('2026-09-16T17:42:11Z') }));
    const second = Buffer.from(buildSeedISO({ ...options, created: new Date('2027-01-02T03:04:05Z') }));
    expect(second.length).toBe(first.length);
    const differing = [...first.keys()].filter((index) => first[index] !== second[index]);
    expect(differing.length).toBeGreaterThan(0);
    // Every differing byte lies inside a date field: the descriptors' 17-byte dates, the records'
    // 7-byte dates and the Rock Ridge TF stamps. None lies in file data.
    const dataStart = first.indexOf(Buffer.from('#cloud-config'));
    expect(differing.every((index) => index < dataStart)).toBe(true);
  });

  it('refuses a domain name that cannot go into meta-data', () => {
    expect(() => buildSeedISO({ domain: 'bad\nname', cloudInit: '', installGuestAgent: true })).toThrow(/not usable in meta-data/);
  });
});
