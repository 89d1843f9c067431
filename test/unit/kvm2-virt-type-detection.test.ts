// virtType `detect`: the domain capabilities read once per connection, kvm only when libvirt
// offers it, qemu otherwise; a configured type is used without asking; the choice is logged.
import { describe, expect, it } from 'vitest';
import type { Kvm2Host } from '@/server/providers/kvm2/kvm2';
import type { LibvirtAPI } from '@/server/providers/kvm2/libvirt-api';
import { offeredVirtType, resolveVirtType } from '@/server/providers/kvm2/virt-type';
import { kvm2Settings } from '@/test/fakes/kvm2-settings';
import { captureLogs } from '@/test/support/log-capture';

const hostWith = (virtType?: 'kvm' | 'qemu'): Kvm2Host =>
  kvm2Settings({ hosts: [{ name: 'beelink', address: 'beelink:22', user: 'u', bridge: 'br0', ...(virtType ? { virtType } : {}) }] }).hosts[0]!;

const capabilities = (domain: string) =>
  `<domainCapabilities>\n  <path>/usr/bin/qemu-system-x86_64</path>\n  <domain>${domain}</domain>\n  <machine>pc-q35-7.2</machine>\n</domainCapabilities>`;

function fakeApi(answer: () => Promise<string>) {
  const calls: unknown[] = [];
  const api = {
    connectGetDomainCapabilities: (options: unknown) => {
      calls.push(options);
      return answer();
    },
  } as unknown as LibvirtAPI;
  return { api, calls };
}

describe('virt type detection', () => {
  it('defaults to detect when the host does not configure one', () => {
    expect(hostWith().virtType).toBe('detect');
  });

  it.each([
    ['kvm', 'kvm'],
    ['qemu', 'qemu'],
    ['hvf', 'qemu'],
  ] as const)('libvirt naming %s as its default gives %s', (offered, chosen) => {
    expect(offeredVirtType(capabilities(offered))).toBe(chosen);
  });

  it('uses a configured type without asking libvirt', async () => {
    const { api, calls } = fakeApi(async () => capabilities('kvm'));
    expect(await resolveVirtType(api, { host: hostWith('qemu'), logger: captureLogs().logger, detected: new WeakMap() })).toBe('qemu');
    expect(calls).toHaveLength(0);
  });

  it('reads the capabilities once per connection, again on a new one, and logs the choice', async () => {
    const { lines, logger } = captureLogs();
    const host = hostWith();
    const detected = new WeakMap();
    const first = fakeApi(async () => capabilities('qemu'));
    expect(await resolveVirtType(first.api, { host, logger, detected })).toBe('qemu');
    expect(await resolveVirtType(first.api, { host, logger, detected })).toBe('qemu');
    expect(first.calls).toHaveLength(1);

    const redialled = fakeApi(async () => capabilities('kvm'));
    expect(await resolveVirtType(redialled.api, { host, logger, detected })).toBe('kvm');
    expect(redialled.calls).toHaveLength(1);
    expect(lines.map((line) => line.virtType)).toEqual(['qemu', 'kvm']);
  });

  it('does not remember a failed read: the next call asks again', async () => {
    let attempt = 0;
    const { api, calls } = fakeApi(async () => {
      attempt += 1;
      if (attempt === 1) throw new Error('connection reset');
      return capabilities('kvm');
    });
    const host = hostWith();
    const detected = new WeakMap();
    await expect(resolveVirtType(api, { host, logger: captureLogs().logger, detected })).rejects.toThrow('connection reset');
    expect(await resolveVirtType(api, { host, logger: captureLogs().logger, detected })).toBe('kvm');
    expect(calls).toHaveLength(2);
  });
});
