// The set form's body: the server's schema checks it in the browser, errors land on the form's fields.
import { describe, expect, it } from 'vitest';
import { buildSetCreate, buildSetUpdate, initialSetState } from '@/components/proxysets/set-form-model';

const filled = {
  ...initialSetState([]),
  name: 'crawl',
  provider: 'kvm',
  machineType: 'small',
  image: 'debian-12',
  cloudInit: { source: 'none' as const, networks: '', pasted: '' },
};

describe('the set form', () => {
  it('builds the POST body with the defaults the server would apply', () => {
    const { input, errors } = buildSetCreate(filled);
    expect(errors).toEqual({});
    expect(input).toMatchObject({
      name: 'crawl',
      replicas: 3,
      template: { provider: 'kvm', placement: { machineType: 'small', image: 'debian-12' }, port: 3128, cloudInit: '' },
      maxSurge: 1,
      maxUnavailable: 0,
      readyTimeout: '10m',
    });
  });

  it.each([
    ['replicas', { replicas: 'lots' }, 'replicas'],
    ['a duration', { readyTimeout: '10 minutes' }, 'readyTimeout'],
    ['surge and unavailable both 0', { maxSurge: '0' }, 'maxSurge'],
    ['the cloud-init header', { cloudInit: { source: 'paste' as const, networks: '', pasted: 'packages: []\n' } }, 'cloudInit'],
    ['the machine type', { machineType: '' }, 'placement.machineType'],
  ])('puts a bad %s on its field', (_name, patch, field) => {
    expect(Object.keys(buildSetCreate({ ...filled, ...patch }).errors)).toContain(field);
  });

  it('leaves a kept cloud-init out of the PUT', () => {
    const { input, errors } = buildSetUpdate({ ...filled, cloudInit: { source: 'keep', networks: '', pasted: '' } }, true);
    expect(errors).toEqual({});
    expect(input.template).not.toHaveProperty('cloudInit');
    expect(input.paused).toBe(true);
  });
});
