import { describe, expect, it } from 'vitest';
import { ErrPermanent } from '@/server/providers/errors';
import { formatProviderID, parseProviderID, readProviderID } from '@/server/providers/kvm2/provider-id';
import {
  baseVolumeName,
  baseVolumeXML,
  diskSizeBytes,
  markerVolumeName,
  markerVolumeXML,
  overlayVolumeName,
  overlayVolumeXML,
  seedVolumeName,
  seedVolumeXML,
  urlImageKey,
} from '@/server/providers/kvm2/volume';
import { parseVolumeXML } from '@/server/providers/kvm2/xml-parse';

describe('volume names', () => {
  it('names what lands in the pool as the spec says', () => {
    const base = baseVolumeName({ provider: 'kvm2-home', key: 'debian-13', format: 'qcow2' });
    expect(base).toBe('base-kvm2-home-debian-13.qcow2');
    expect(markerVolumeName(base)).toBe('base-kvm2-home-debian-13.qcow2.sha256');
    expect(overlayVolumeName('proxy-abc')).toBe('proxy-abc.qcow2');
    expect(seedVolumeName('proxy-abc')).toBe('proxy-abc-seed.iso');
    expect(baseVolumeName({ provider: 'p', key: 'k', format: 'raw' })).toBe('base-p-k.raw');
  });

  it('keys a URL image by the first 16 hex of the URL sha256', () => {
    // printf %s https://example.org/x.qcow2 | sha256sum | cut -c1-16
    expect(urlImageKey('https://example.org/x.qcow2')).toBe('693c00ba9539fbf3');
    expect(urlImageKey('https://example.org/y.qcow2')).not.toBe(urlImageKey('https://example.org/x.qcow2'));
  });

  it('reads diskSizeGb as GiB', () => {
    expect(diskSizeBytes(10)).toBe(10 * 1024 ** 3);
  });
});

describe('providerID', () => {
  it('round-trips hosts/<host>/domains/<domain>', () => {
    const id = formatProviderID({ host: 'beelink', domain: 'proxy-abc' });
    expect(id).toBe('hosts/beelink/domains/proxy-abc');
    expect(parseProviderID(id)).toEqual({ host: 'beelink', domain: 'proxy-abc' });
  });

  it.each([
    [{ host: '..', domain: 'proxy-abc' }, 'host name ".." is not a usable name: . and .. name directories'],
    [{ host: 'beelink', domain: '.' }, 'domain name "." is not a usable name: . and .. name directories'],
  ])('never formats %j into a path that climbs', (address, message) => {
    expect(() => formatProviderID(address)).toThrow(message);
  });

  it.each([
    '',
    'proxy-abc',
    'hosts/beelink',
    'hosts//domains/proxy-abc',
    'hosts/beelink/domains/',
    'hosts/beelink/domains/a/b',
    'host/beelink/domains/proxy-abc',
    'hosts/bee link/domains/proxy-abc',
    '/hosts/beelink/domains/proxy-abc',
    'hosts/../domains/proxy-abc',
    'hosts/./domains/proxy-abc',
    'hosts/beelink/domains/..',
  ])('refuses %j permanently', (id) => {
    expect(() => parseProviderID(id)).toThrow(ErrPermanent);
    expect(() => parseProviderID(id)).toThrow(`malformed providerID ${JSON.stringify(id)}: want hosts/<host>/domains/<domain>`);
  });
});

describe('volume XML', () => {
  it('declares the overlay as qcow2 of diskSizeGb bytes backed by the base file', () => {
    const xml = overlayVolumeXML({ domain: 'proxy-abc', diskSizeGb: 10, basePath: '/pool/base-p-k.qcow2', baseFormat: 'qcow2' });
    expect(xml).toContain('<capacity unit="bytes">10737418240</capacity>');
    expect(parseVolumeXML(xml)).toMatchObject({
      name: 'proxy-abc.qcow2',
      format: 'qcow2',
      capacityBytes: 10 * 1024 ** 3,
      backingPath: '/pool/base-p-k.qcow2',
      backingFormat: 'qcow2',
    });
  });

  it('declares a raw base as the backing format of an overlay over it', () => {
    const xml = overlayVolumeXML({ domain: 'd', diskSizeGb: 1, basePath: '/pool/base-p-k.raw', baseFormat: 'raw' });
    expect(parseVolumeXML(xml)).toMatchObject({ format: 'qcow2', backingFormat: 'raw' });
  });

  it('declares seed and marker as sparse raw volumes of their exact size', () => {
    expect(parseVolumeXML(seedVolumeXML({ domain: 'proxy-abc', sizeBytes: 57344 }))).toMatchObject({
      name: 'proxy-abc-seed.iso',
      format: 'raw',
      capacityBytes: 57344,
      allocationBytes: 0,
      backingPath: undefined,
    });
    expect(parseVolumeXML(markerVolumeXML('base-p-k.qcow2'))).toMatchObject({
      name: 'base-p-k.qcow2.sha256',
      format: 'raw',
      capacityBytes: 64,
    });
  });

  it('declares the base raw and sparse with exactly the download length', () => {
    expect(parseVolumeXML(baseVolumeXML({ name: 'base-p-k.qcow2', sizeBytes: 123456 }))).toMatchObject({
      name: 'base-p-k.qcow2',
      format: 'raw',
      capacityBytes: 123456,
      allocationBytes: 0,
      backingPath: undefined,
    });
  });

  it('escapes awkward paths and names', () => {
    const awkward = `/pool/a<b&c"d'.qcow2`;
    const xml = overlayVolumeXML({ domain: `x&y`, diskSizeGb: 1, basePath: awkward, baseFormat: 'qcow2' });
    expect(xml).not.toContain('a<b&c');
    expect(parseVolumeXML(xml)).toMatchObject({ name: 'x&y.qcow2', backingPath: awkward });
  });

  it('refuses a capacity that is not a positive whole number of bytes', () => {
    expect(() => seedVolumeXML({ domain: 'd', sizeBytes: 0 })).toThrow(/capacity must be a positive whole number of bytes/);
  });

  it('reads what libvirt returns for a volume, units included', () => {
    const dumped = `<volume type='file'>
  <name>proxy-abc.qcow2</name>
  <key>/var/lib/libvirt/images/proxy-abc.qcow2</key>
  <capacity unit='bytes'>10737418240</capacity>
  <allocation unit='KiB'>196</allocation>
  <physical unit='bytes'>200704</physical>
  <target>
    <path>/var/lib/libvirt/images/proxy-abc.qcow2</path>
    <format type='qcow2'/>
    <permissions><mode>0600</mode><owner>0</owner><group>0</group></permissions>
  </target>
  <backingStore>
    <path>/var/lib/libvirt/images/base-lab-img.qcow2</path>
    <format type='qcow2'/>
  </backingStore>
</volume>`;
    expect(parseVolumeXML(dumped)).toEqual({
      name: 'proxy-abc.qcow2',
      key: '/var/lib/libvirt/images/proxy-abc.qcow2',
      path: '/var/lib/libvirt/images/proxy-abc.qcow2',
      format: 'qcow2',
      capacityBytes: 10737418240,
      allocationBytes: 196 * 1024,
      backingPath: '/var/lib/libvirt/images/base-lab-img.qcow2',
      backingFormat: 'qcow2',
    });
  });

  it.each([
    ['hosts/beelink/domains/proxy-abc', { host: 'beelink', domain: 'proxy-abc' }],
    ['hosts//domains/', { host: '', domain: '' }],
    ['hosts/beelink/domains/a/b', { host: 'beelink', domain: undefined }],
    ['proxy-abc', { host: undefined, domain: undefined }],
  ])('reads %j as far as it can for logs, without throwing', (id, address) => {
    expect(readProviderID(id)).toEqual(address);
  });
});
