// Editing where a host keeps its Proxies' volumes (its `pool`) or how it is reached (its `socket`)
// while Proxies use it would make their later Delete look in the wrong place and leave their
// overlay and seed behind, invisible to GC. The dashboard's host save refuses it as Remove is
// refused, naming the Proxies, and writes nothing; every other field, and a pool or socket that
// keeps its effective value, still saves.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HostInUseError } from '@/server/onboarding/errors';
import { hostConfigFileEachTest, proxyRecordOn } from '@/test/support/host-config';

const file = hostConfigFileEachTest(
  'host-storage-',
  (dir) =>
    `- name: home\n  type: kvm2\n  kvm2:\n    sshKeyFile: ${dir}/id\n    knownHostsFile: ${dir}/kh\n    machineTypes:\n      small: {vcpus: 1, memoryMiB: 512}\n    hosts:\n      - name: a\n        address: a.lan\n        user: virt\n        bridge: br0\n      - name: b\n        address: b.lan\n        user: virt\n        bridge: br0\n        pool: fast\n`,
);

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
    file.proxies = [proxyRecordOn('p1', host), proxyRecordOn('p2', host === 'a' ? 'b' : 'a'), proxyRecordOn('p3', host, { byInstance: true })];
    const err = await refusalOf(file.hosts.update('home', host, fields));
    expect(err).toBeInstanceOf(HostInUseError);
    expect((err as HostInUseError).code).toBe('ERR_HOST_IN_USE');
    expect((err as HostInUseError).proxies).toEqual(['p1', 'p3']);
    expect(err?.message).toContain(`${field} from ${change}`);
    expect(err?.message).toContain('p1, p3');
    expect(readFileSync(file.path, 'utf8')).toBe(file.text);
    expect(file.reloads).toBe(0);
  });

  it('saves other fields of a host in use, and a pool or socket that keeps its effective value', async () => {
    file.proxies = [proxyRecordOn('p1', 'a'), proxyRecordOn('p2', 'b')];
    await file.hosts.update('home', 'a', { user: 'admin', pool: 'default', socket: '/var/run/libvirt/libvirt-sock' });
    await file.hosts.update('home', 'b', { bridge: 'br1', pool: 'fast' });
    const saved = readFileSync(file.path, 'utf8');
    expect(saved).toContain('user: admin');
    expect(saved).toContain('bridge: br1');
    expect(file.reloads).toBe(2);
  });

  it('saves a new pool once no Proxy uses the host', async () => {
    file.proxies = [proxyRecordOn('p2', 'b')];
    await file.hosts.update('home', 'a', { pool: 'fast' });
    expect(readFileSync(file.path, 'utf8')).toMatch(/name: a\n(.*\n)*?\s+pool: fast\n/);
    expect(file.reloads).toBe(1);
  });
});
