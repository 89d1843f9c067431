// Many calls in flight on one real connection, and a stalled daemon.
import { describe, expect, it } from 'vitest';
import { CallTimeoutError, ConnectionKilledError, isLibvirtError } from '@/server/libvirt';
import { hostDaemonPid, virsh } from './harness/lab';
import { openOverSsh, sshClientSuite, virshLibVersion } from './rpc-lab-support';

const suite = sshClientSuite();

describe('one connection, many calls', () => {
  it('answers 100 concurrent calls each with its own correct result', async () => {
    const hostname = (await virsh(['hostname'])).trim();
    const version = await virshLibVersion();
    const kinds = [
      async () => expect(await suite.libvirt.connectGetHostname()).toBe(hostname),
      async () => expect(await suite.libvirt.connectGetLibVersion()).toBe(version),
      async () => expect((await suite.libvirt.storagePoolLookupByName({ name: suite.lab.pool.name })).name).toBe(suite.lab.pool.name),
      async () => {
        const err = await suite.libvirt.domainLookupByName({ name: `rpctest-missing-${Math.random()}` }).catch((e: unknown) => e);
        expect(isLibvirtError(err, 'ErrNoDomain')).toBe(true);
      },
    ];
    const results = await Promise.allSettled(Array.from({ length: 100 }, (_, i) => kinds[i % kinds.length]!()));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(suite.libvirt.alive).toBe(true);
  });
});

describe('a stalled libvirtd', () => {
  it('a call with a 2 s budget rejects with the budget error, and a fresh connection works after SIGCONT', async () => {
    const stalled = await openOverSsh(suite.lab);
    const bystander = await openOverSsh(suite.lab);
    const pid = hostDaemonPid(suite.lab.hosts[0]!, 'libvirtd');
    let timedOut: unknown;
    let pendingAlongside: unknown;
    process.kill(pid, 'SIGSTOP');
    try {
      const alongside = stalled.connectGetHostname({ timeoutMs: 60_000 }).catch((e: unknown) => e);
      timedOut = await stalled.connectGetLibVersion({ timeoutMs: 2_000 }).catch((e: unknown) => e);
      pendingAlongside = await alongside;
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    expect(timedOut).toBeInstanceOf(CallTimeoutError);
    expect(timedOut).toMatchObject({ code: 'LIBVIRT_CALL_TIMEOUT', timeoutMs: 2_000 });
    expect(pendingAlongside).toBeInstanceOf(ConnectionKilledError);
    expect(stalled.alive).toBe(false);
    expect(bystander.alive).toBe(true); // only the abandoned call's connection died

    const fresh = await openOverSsh(suite.lab);
    try {
      expect(await fresh.connectGetLibVersion()).toBe(await virshLibVersion());
      expect(await bystander.connectGetHostname()).toBe((await virsh(['hostname'])).trim());
    } finally {
      await fresh.close();
      await bystander.close();
    }
  });
});
