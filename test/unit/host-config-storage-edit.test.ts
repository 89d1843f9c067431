// Editing where a host keeps its Proxies' volumes (its `pool`) or how it is reached (its `socket`)
// while Proxies use it would make their later Delete look in the wrong place and leave their
// overlay and seed behind, invisible to GC. The dashboard's host save refuses it as Remove is
// refused, naming the Proxies, and writes nothing; every other field, and a pool or socket that
// keeps its effective value, still saves.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HostInUseError } from '@/server/onboarding/errors';
import type { HostConfig } from '@/server/onboarding/host-config';
import type { ProxyRecord } from '@/server/store';
import { createLogger } from '@/server/telemetry/logger';
import { tempDir } from '@/test/fakes/control-plane';
import { hostConfigOver } from '@/test/support/host-config';

const logger = createLogger({ level: 'silent' });
let dir: ReturnType<typeof tempDir>;
let path: string;
let text: string;
let proxies: ProxyRecord[];
let reloads: number;
let hosts: HostConfig;

const proxyOn = (name: string, host: string, options: { byInstance?: boolean } = {}): ProxyRecord =>
  ({
    uid: `uid-${name}`,
    name,
    spec: {
      mode: 'Managed',
      provider: 'home',
      placement: { ...(options.byInstance ? {} : { zone: host }), machineType: 'small', image: 'debian' },
      port: 3128,
      labels: {},
      cloudInit: '',
    },
    // The instance's host as the reconciler recorded it; the providerID is the provider's own business.
    status: { phase: 'Running', conditions: [], ...(options.byInstance ? { providerID: `opaque-${name}`, host } : {}) },
    generation: 1,
    createdAt: '',
    updatedAt: '',
  }) as ProxyRecord;

beforeEach(() => {
  dir = tempDir('host-storage-');
  path = join(dir.path, 'providers.yaml');
  text = `- name: home\n  type: kvm2\n  kvm2:\n    sshKeyFile: ${dir.path}/id\n    knownHostsFile: ${dir.path}/kh\n    machineTypes:\n      small: {vcpus: 1, memoryMiB: 512}\n    hosts:\n      - name: a\n        address: a.lan\n        user: virt\n        bridge: br0\n      - name: b\n        address: b.lan\n        user: virt\n        bridge: br0\n        pool: fast\n`;
  writeFileSync(path, text);
  proxies = [];
  reloads = 0;
  ({ hosts } = hostConfigOver({ configPath: path, proxies: () => proxies, reloaded: () => (reloads += 1), logger }));
});
afterEach(() => dir.remove());

const refusalOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (err: unknown) => err as Error,
  );

describe('a host edit that moves its Proxies’ volumes', () => {
  it.each([
    ['a new pool', 'a', { pool: 'fast' }, 'pool', '"default" to "fast"'],
    ['a new socket', 'a', { socket: '/run/libvirt/other-sock' }, 'socket', '"/var/run/libvirt/libvirt-sock" to "/run/libvirt/other-sock"'],
    ['removing a pool (back to the default)', 'b', { pool: null }, 'pool', '"fast" to "default"'],
  ] as const)('refuses %s while Proxies use the host, naming them, and writes nothing', async (_what, host, fields, field, change) => {
    proxies = [proxyOn('p1', host), proxyOn('p2', host === 'a' ? 'b' : 'a'), proxyOn('p3', host, { byInstance: true })];
    const err = await refusalOf(hosts.update('home', host, fields));
    expect(err).toBeInstanceOf(HostInUseError);
    expect((err as HostInUseError).code).toBe('ERR_HOST_IN_USE');
    expect((err as HostInUseError).proxies).toEqual(['p1', 'p3']);
    expect(err?.message).toContain(`${field} from ${change}`);
    expect(err?.message).toContain('p1, p3');
    expect(readFileSync(path, 'utf8')).toBe(text);
    expect(reloads).toBe(0);
  });

  it('saves other fields of a host in use, and a pool or socket that keeps its effective value', async () => {
    proxies = [proxyOn('p1', 'a'), proxyOn('p2', 'b')];
    await hosts.update('home', 'a', { user: 'admin', pool: 'default', socket: '/var/run/libvirt/libvirt-sock' });
    await hosts.update('home', 'b', { bridge: 'br1', pool: 'fast' });
    const saved = readFileSync(path, 'utf8');
    expect(saved).toContain('user: admin');
    expect(saved).toContain('bridge: br1');
    expect(reloads).toBe(2);
  });

  it('saves a new pool once no Proxy uses the host', async () => {
    proxies = [proxyOn('p2', 'b')];
    await hosts.update('home', 'a', { pool: 'fast' });
    expect(readFileSync(path, 'utf8')).toMatch(/name: a\n(.*\n)*?\s+pool: fast\n/);
    expect(reloads).toBe(1);
  });
});
