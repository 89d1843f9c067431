// Our libvirt client against the lab's real libvirtd, through the lab's real sshd (the socket
// forward the provider uses): handshake, connect-level procedures, polkit refusal.
import { describe, expect, it } from 'vitest';
import { ConnectListAllStoragePoolsFlags, isLibvirtError, LibvirtError } from '@/server/libvirt';
import { virsh } from './harness/lab';
import { openOverSsh, sshClientSuite, virshLibVersion } from './rpc-lab-support';

const suite = sshClientSuite();

const names = (items: Array<{ name: string }>) => items.map((item) => item.name).sort();

describe('connect procedures over the SSH-forwarded socket', () => {
  it('lib version and hostname equal what virsh reports', async () => {
    expect(await suite.libvirt.connectGetLibVersion()).toBe(await virshLibVersion());
    expect(await suite.libvirt.connectGetHostname()).toBe((await virsh(['hostname'])).trim());
  });

  it('the two lab hosts are two libvirtds: 9.0.0 on lab1, 11.3.0 on lab2', async () => {
    const second = await openOverSsh(suite.lab, { host: suite.lab.hosts[1] });
    try {
      expect(await suite.libvirt.connectGetLibVersion()).toBe(9_000_000);
      expect(await second.connectGetLibVersion()).toBe(11_003_000);
    } finally {
      await second.close();
    }
  });

  it('capabilities and domain capabilities are the host documents virsh sees', async () => {
    const capabilities = await suite.libvirt.connectGetCapabilities();
    const hostUuid = /<host>\s*<uuid>([^<]+)<\/uuid>/.exec(capabilities)?.[1];
    expect(hostUuid).toBeDefined();
    expect(await virsh(['capabilities'])).toContain(`<uuid>${hostUuid}</uuid>`);
    const domainCaps = await suite.libvirt.connectGetDomainCapabilities({ virttype: 'qemu' });
    expect(domainCaps).toMatch(/<domainCapabilities>[\s\S]*<domain>qemu<\/domain>/);
  });

  it('lists the storage pools virsh lists, with the pool flags (INACTIVE=1, ACTIVE=2)', async () => {
    const virshPools = (await virsh(['pool-list', '--all', '--name']))
      .split('\n')
      .map((s) => s.trim())
      .filter(Boolean);
    expect(names(await suite.libvirt.connectListAllStoragePools())).toEqual(virshPools.sort());
    const active = names(await suite.libvirt.connectListAllStoragePools({ flags: ConnectListAllStoragePoolsFlags.Active }));
    const inactive = names(await suite.libvirt.connectListAllStoragePools({ flags: ConnectListAllStoragePoolsFlags.Inactive }));
    expect(active).toContain(suite.lab.pool.name);
    expect(active).not.toContain(suite.lab.inactivePool.name);
    expect(inactive).toContain(suite.lab.inactivePool.name);
    expect(inactive).not.toContain(suite.lab.pool.name);
  });
});

describe('a user polkit refuses', () => {
  it('gets a LibvirtError (ErrAuthFailed or ErrAccessDenied) from the handshake', async () => {
    const err = await openOverSsh(suite.lab, { user: suite.lab.nonLibvirtUser }).then(
      (client) => client.close().then(() => 'connected'),
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LibvirtError);
    expect(isLibvirtError(err, 'ErrAuthFailed') || isLibvirtError(err, 'ErrAccessDenied')).toBe(true);
    expect((err as LibvirtError).procedure).toBe('authPolkit');
  });
});
