import { describe, expect, it } from 'vitest';
import { fieldErrors, maxCloudInitBytes, proxyCreateSchema, proxyUpdateSchema } from '@/lib/proxy-spec';

function messagesOf(input: unknown, schema: typeof proxyCreateSchema | typeof proxyUpdateSchema = proxyCreateSchema) {
  const parsed = schema.safeParse(input);
  return parsed.success ? [] : fieldErrors(parsed.error);
}

const managed = {
  name: 'alpha',
  mode: 'Managed',
  provider: 'kvm2-home',
  placement: { zone: 'lab1', machineType: 'small', image: 'debian-13' },
  cloudInit: '#cloud-config\n',
};

function errorsOf(input: unknown, schema: typeof proxyCreateSchema | typeof proxyUpdateSchema = proxyCreateSchema) {
  const parsed = schema.safeParse(input);
  return parsed.success ? [] : fieldErrors(parsed.error).map((error) => error.path);
}

describe('the Proxy spec schema', () => {
  it('fills the defaults: port 3128, no labels, empty cloud-init', () => {
    const parsed = proxyCreateSchema.parse({ name: 'a', mode: 'Managed', provider: 'p', placement: { machineType: 'small', image: 'debian-13' } });
    expect(parsed).toMatchObject({ port: 3128, labels: {}, cloudInit: '' });
  });

  it('accepts a Static proxy by host name, IPv4 or IPv6 address', () => {
    for (const address of ['proxy.lan', '192.0.2.10', '2001:db8::10']) {
      expect(errorsOf({ name: 'edge', mode: 'Static', address, port: 8080 })).toEqual([]);
    }
  });

  it.each([
    ['a name with capitals', { ...managed, name: 'Alpha' }, 'name'],
    ['a name starting with a dash', { ...managed, name: '-alpha' }, 'name'],
    ['a name of 64 characters', { ...managed, name: 'a'.repeat(64) }, 'name'],
    ['a name with a dot', { ...managed, name: 'al.pha' }, 'name'],
    ['a number as name', { ...managed, name: 42 }, 'name'],
    ['an unknown mode', { ...managed, mode: 'Dynamic' }, 'mode'],
    ['no mode', { ...managed, mode: undefined }, 'mode'],
    ['no provider', { ...managed, provider: undefined }, 'provider'],
    ['an empty provider', { ...managed, provider: ' ' }, 'provider'],
    ['no placement', { ...managed, placement: undefined }, 'placement'],
    ['no machineType', { ...managed, placement: { image: 'debian-13' } }, 'placement.machineType'],
    ['a numeric image', { ...managed, placement: { machineType: 'small', image: 7 } }, 'placement.image'],
    ['an unknown placement field', { ...managed, placement: { ...managed.placement, size: 'xl' } }, 'placement.size'],
    ['port 0', { ...managed, port: 0 }, 'port'],
    ['port 65536', { ...managed, port: 65536 }, 'port'],
    ['a fractional port', { ...managed, port: 31.5 }, 'port'],
    ['a string port', { ...managed, port: '3128' }, 'port'],
    ['cloud-init over 64 KiB', { ...managed, cloudInit: 'x'.repeat(maxCloudInitBytes + 1) }, 'cloudInit'],
    ['multi-byte cloud-init over 64 KiB in UTF-8', { ...managed, cloudInit: 'é'.repeat(maxCloudInitBytes / 2 + 1) }, 'cloudInit'],
    ['cloud-init as an object', { ...managed, cloudInit: { packages: ['squid'] } }, 'cloudInit'],
    ['a label value with a space', { ...managed, labels: { pool: 'a b' } }, 'labels.pool'],
    ['a label key with a space', { ...managed, labels: { 'my pool': 'a' } }, 'labels.my pool'],
    ['a numeric label value', { ...managed, labels: { pool: 1 } }, 'labels.pool'],
    ['an extra top-level field', { ...managed, owner: 'me' }, 'owner'],
    ['an address on a Managed proxy', { ...managed, address: '192.0.2.1' }, 'address'],
    ['a Static proxy without address', { name: 'edge', mode: 'Static' }, 'address'],
    ['a Static proxy with a bad address', { name: 'edge', mode: 'Static', address: 'not a host!' }, 'address'],
    ['a Static proxy with cloud-init', { name: 'edge', mode: 'Static', address: 'proxy.lan', cloudInit: 'x' }, 'cloudInit'],
  ])('refuses %s, naming the field', (_what, input, path) => {
    expect(errorsOf(input)).toContain(path);
  });

  it('accepts exactly 64 KiB of cloud-init', () => {
    expect(errorsOf({ ...managed, cloudInit: 'x'.repeat(maxCloudInitBytes) })).toEqual([]);
  });

  it('refuses more than 32 labels', () => {
    const labels = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, 'v']));
    expect(errorsOf({ ...managed, labels })).toContain('labels');
  });

  it('says a missing placement.machineType is required', () => {
    expect(messagesOf({ ...managed, placement: { image: 'debian-13' } })).toEqual([{ path: 'placement.machineType', message: 'is required' }]);
    expect(messagesOf({ ...managed, placement: { machineType: 7, image: 'debian-13' } })).toEqual([
      { path: 'placement.machineType', message: 'must be a string' },
    ]);
  });

  it('accepts cloud-init as base64 (gzipped user-data), capped on the decoded bytes', () => {
    const gzip = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xff, 0x00, 0x80]);
    expect(errorsOf({ ...managed, cloudInit: undefined, cloudInitBase64: gzip.toString('base64') })).toEqual([]);
    // line-wrapped as `base64` prints it
    expect(
      errorsOf({
        ...managed,
        cloudInit: undefined,
        cloudInitBase64: Buffer.alloc(100)
          .toString('base64')
          .replace(/(.{76})/g, '$1\n'),
      }),
    ).toEqual([]);
    expect(errorsOf({ ...managed, cloudInit: undefined, cloudInitBase64: Buffer.alloc(maxCloudInitBytes).toString('base64') })).toEqual([]);
    expect(messagesOf({ ...managed, cloudInit: undefined, cloudInitBase64: Buffer.alloc(maxCloudInitBytes + 1).toString('base64') })).toEqual([
      { path: 'cloudInitBase64', message: `must decode to at most ${maxCloudInitBytes} bytes` },
    ]);
    expect(messagesOf({ ...managed, cloudInit: undefined, cloudInitBase64: 'not base64!' })).toEqual([
      { path: 'cloudInitBase64', message: 'must be base64 (RFC 4648, padded)' },
    ]);
    expect(messagesOf({ ...managed, cloudInitBase64: gzip.toString('base64') })).toEqual([
      { path: 'cloudInitBase64', message: 'give cloudInit (text) or cloudInitBase64 (bytes), not both' },
    ]);
    const { name: _name, cloudInit: _cloudInit, ...update } = managed;
    expect(errorsOf({ ...update, cloudInitBase64: gzip.toString('base64') }, proxyUpdateSchema)).toEqual([]);
  });

  it('lets an update leave cloud-init out, but not carry a name', () => {
    const { name: _name, cloudInit: _cloudInit, ...update } = managed;
    expect(errorsOf(update, proxyUpdateSchema)).toEqual([]);
    expect(errorsOf({ ...update, name: 'alpha' }, proxyUpdateSchema)).toContain('name');
  });
});
