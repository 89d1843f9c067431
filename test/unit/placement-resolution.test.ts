import { describe, expect, it } from 'vitest';
import { validateProvidersConfig, type Kvm2Entry } from '@/server/providers/config';
import type { Placement } from '@/server/providers/contract';
import { ErrPermanent, isPermanent } from '@/server/providers/errors';
import { resolveImage } from '@/server/providers/kvm2/image-resolve';
import { withDefaults } from '@/server/providers/kvm2/kvm2';
import { resolvePlacement } from '@/server/providers/kvm2/placement';
import { urlImageKey } from '@/server/providers/kvm2/volume';

function settings(hostNames: string[]) {
  const [entry] = validateProvidersConfig([
    {
      name: 'kvm2-home',
      type: 'kvm2',
      kvm2: {
        sshKeyFile: '/k/id',
        knownHostsFile: '/k/kh',
        images: {
          'debian-13': { url: 'https://example.org/d13.qcow2', sha256: 'c'.repeat(64) },
          alpine: { url: 'https://example.org/alpine.img', format: 'raw', firmware: 'bios' },
        },
        machineTypes: { small: { vcpus: 1, memoryMiB: 1024 }, large: { vcpus: 4, memoryMiB: 8192 } },
        hosts: hostNames.map((name) => ({ name, address: `${name}:22`, user: 'admin', bridge: 'br0' })),
      },
    },
  ]);
  return withDefaults(entry as Kvm2Entry);
}

const one = settings(['beelink']);
const two = settings(['beelink', 'nuc']);

function permanentMessage(action: () => unknown): string {
  try {
    action();
  } catch (err) {
    expect(err).toBeInstanceOf(ErrPermanent);
    expect(isPermanent(err)).toBe(true);
    return (err as Error).message;
  }
  throw new Error('no error thrown');
}

describe('placement', () => {
  it.each([
    {
      what: 'unknown zone',
      settings: two,
      placement: { zone: 'x', machineType: 'small', image: 'debian-13' },
      message: 'placement.zone "x" is not in kvm2.hosts',
    },
    {
      what: 'unknown zone with one host',
      settings: one,
      placement: { zone: 'x', machineType: 'small', image: 'debian-13' },
      message: 'placement.zone "x" is not in kvm2.hosts',
    },
    {
      what: 'no zone with two hosts',
      settings: two,
      placement: { machineType: 'small', image: 'debian-13' },
      message: 'placement.zone is required when kvm2.hosts lists more than one host',
    },
    {
      what: 'empty zone with two hosts',
      settings: two,
      placement: { zone: '', machineType: 'small', image: 'debian-13' },
      message: 'placement.zone is required when kvm2.hosts lists more than one host',
    },
    {
      what: 'unknown machine type',
      settings: one,
      placement: { machineType: 'x', image: 'debian-13' },
      message: 'placement.machineType "x" is not in kvm2.machineTypes',
    },
    {
      what: 'inherited key as machine type',
      settings: one,
      placement: { machineType: 'constructor', image: 'debian-13' },
      message: 'placement.machineType "constructor" is not in kvm2.machineTypes',
    },
    {
      what: 'unknown image',
      settings: one,
      placement: { machineType: 'small', image: 'x' },
      message: 'placement.image "x" is neither a key in kvm2.images nor an http(s) URL',
    },
    {
      what: 'non-http URL image',
      settings: one,
      placement: { machineType: 'small', image: 'ftp://example.org/x.qcow2' },
      message: 'placement.image "ftp://example.org/x.qcow2" is neither a key in kvm2.images nor an http(s) URL',
    },
    {
      what: 'non-http URL image with credentials and a query',
      settings: one,
      placement: { machineType: 'small', image: 'ftp://me:secret@example.org/x.qcow2?token=t' },
      message: 'placement.image "ftp://example.org/x.qcow2" is neither a key in kvm2.images nor an http(s) URL',
    },
    // A request that bypassed the API schema (no machineType at all) reads as missing, not `undefined`.
    { what: 'missing machine type', settings: one, placement: { image: 'debian-13' } as unknown as Placement, message: 'placement.machineType is required' },
    { what: 'empty machine type', settings: one, placement: { machineType: '', image: 'debian-13' }, message: 'placement.machineType is required' },
  ])('refuses $what permanently', ({ settings: configured, placement, message }) => {
    expect(permanentMessage(() => resolvePlacement(configured, placement))).toBe(message);
  });

  it('checks zone first, then machine type, then image', () => {
    expect(permanentMessage(() => resolvePlacement(two, { zone: 'x', machineType: 'x', image: 'x' }))).toMatch(/^placement\.zone/);
    expect(permanentMessage(() => resolvePlacement(two, { zone: 'nuc', machineType: 'x', image: 'x' }))).toMatch(/^placement\.machineType/);
  });

  it('takes the only host when the zone is omitted, and ignores region', () => {
    const resolved = resolvePlacement(one, { machineType: 'large', image: 'debian-13', region: 'anything' });
    expect(resolved.host.name).toBe('beelink');
    expect(resolved.machineTypeName).toBe('large');
    expect(resolved.machineType).toEqual({ vcpus: 4, memoryMiB: 8192 });
  });

  it('selects the named host among several', () => {
    expect(resolvePlacement(two, { zone: 'nuc', machineType: 'small', image: 'alpine' }).host.name).toBe('nuc');
  });
});

describe('resolveImage', () => {
  it('resolves a catalogue key with its settings and cache names', () => {
    expect(resolveImage(one, 'debian-13')).toEqual({
      key: 'debian-13',
      url: 'https://example.org/d13.qcow2',
      sha256: 'c'.repeat(64),
      format: 'qcow2',
      firmware: 'uefi',
      baseVolume: 'base-kvm2-home-debian-13.qcow2',
      markerVolume: 'base-kvm2-home-debian-13.qcow2.sha256',
      fromCatalogue: true,
    });
    expect(resolveImage(one, 'alpine')).toMatchObject({ format: 'raw', firmware: 'bios', baseVolume: 'base-kvm2-home-alpine.raw' });
  });

  it('uses an http(s) URL directly with qcow2, uefi and the URL hash as key', () => {
    const url = 'http://mirror.example.org/images/x.qcow2';
    const key = urlImageKey(url);
    expect(key).toMatch(/^[0-9a-f]{16}$/);
    expect(resolveImage(one, url)).toEqual({
      key,
      url,
      sha256: undefined,
      format: 'qcow2',
      firmware: 'uefi',
      baseVolume: `base-kvm2-home-${key}.qcow2`,
      markerVolume: `base-kvm2-home-${key}.qcow2.sha256`,
      fromCatalogue: false,
    });
  });
});
