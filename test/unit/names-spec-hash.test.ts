import { describe, expect, it } from 'vitest';
import type { ProxySpec } from '@/lib/proxy-spec';
import { instanceName, specHash } from '@/server/control/names';

const base: ProxySpec = {
  mode: 'Managed',
  provider: 'kvm2-home',
  placement: { zone: 'lab1', machineType: 'small', image: 'debian-13' },
  cloudInit: '#cloud-config\n',
  port: 3128,
  labels: {},
};

describe('instanceName', () => {
  it('is proxy- plus 16 hex characters, the same for the same Proxy name every time', () => {
    expect(instanceName('alpha')).toMatch(/^proxy-[0-9a-f]{16}$/);
    expect(instanceName('alpha')).toBe(instanceName('alpha'));
    expect(instanceName('alpha')).not.toBe(instanceName('beta'));
    // sha256("alpha") starts 8ed3f6ad685b959e
    expect(instanceName('alpha')).toBe('proxy-8ed3f6ad685b959e');
  });
});

describe('specHash', () => {
  it.each([
    ['provider', { ...base, provider: 'kvm2-office' }],
    ['placement.zone', { ...base, placement: { ...base.placement, zone: 'lab2' } }],
    ['placement.region', { ...base, placement: { ...base.placement, region: 'eu' } }],
    ['placement.machineType', { ...base, placement: { ...base.placement, machineType: 'large' } }],
    ['placement.image', { ...base, placement: { ...base.placement, image: 'debian-12' } }],
    ['cloudInit', { ...base, cloudInit: '#cloud-config\npackages: [squid]\n' }],
    ['port', { ...base, port: 8080 }],
  ] satisfies Array<[string, ProxySpec]>)('changes with %s', (_field, changed) => {
    expect(specHash(changed)).not.toBe(specHash(base));
  });

  it('does not change with labels, nor with the order fields were written in', () => {
    expect(specHash({ ...base, labels: { pool: 'crawlers' } })).toBe(specHash(base));
    const reordered = {
      port: 3128,
      labels: {},
      cloudInit: '#cloud-config\n',
      placement: { image: 'debian-13', machineType: 'small', zone: 'lab1' },
      provider: 'kvm2-home',
      mode: 'Managed',
    } as ProxySpec;
    expect(specHash(reordered)).toBe(specHash(base));
  });

  it('covers address and port of a Static proxy', () => {
    const staticSpec: ProxySpec = { mode: 'Static', address: '192.0.2.1', port: 3128, labels: {} };
    expect(specHash({ ...staticSpec, address: '192.0.2.2' })).not.toBe(specHash(staticSpec));
    expect(specHash({ ...staticSpec, port: 8080 })).not.toBe(specHash(staticSpec));
  });
});
