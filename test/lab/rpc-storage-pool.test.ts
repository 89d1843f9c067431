// Storage pool procedures against the lab's real pools, checked against virsh.
import { describe, expect, it } from 'vitest';
import { isLibvirtError, StoragePoolState, storagePoolStateWords } from '@/server/libvirt';
import { virsh } from './harness/lab';
import { sshClientSuite } from './rpc-lab-support';

const suite = sshClientSuite();

/** `virsh pool-info --bytes NAME` as {State, Capacity, Allocation, Available}. */
async function virshPoolInfo(name: string): Promise<Record<string, string>> {
  const out = await virsh(['pool-info', '--bytes', name]);
  return Object.fromEntries(
    out
      .split('\n')
      .map((line) => /^([^:]+):\s*(.*)$/.exec(line.trim()))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1]!.split(' ')[0]!, m[2]!.split(' ')[0]!]),
  );
}

// Allocation and free space follow the filesystem the pool lives on, which other processes on
// this machine write to; our figure must lie between two virsh readings taken around it.
const FS_SLACK = 16 * 1024 * 1024;
const between = (value: number, a: number, b: number) => value >= Math.min(a, b) - FS_SLACK && value <= Math.max(a, b) + FS_SLACK;

describe('storage pool procedures', () => {
  it('pool info equals virsh pool-info', async () => {
    const pool = await suite.libvirt.storagePoolLookupByName({ name: suite.lab.pool.name });
    const before = await virshPoolInfo(suite.lab.pool.name);
    const info = await suite.libvirt.storagePoolGetInfo({ pool });
    const after = await virshPoolInfo(suite.lab.pool.name);
    expect(storagePoolStateWords[info.state]).toBe(before.State);
    expect(info.state).toBe(StoragePoolState.Running);
    expect(info.capacity).toBe(Number(before.Capacity));
    expect(between(info.allocation, Number(before.Allocation), Number(after.Allocation))).toBe(true);
    expect(between(info.available, Number(before.Available), Number(after.Available))).toBe(true);
  });

  it('the pool lookup carries the uuid virsh reports, and the XML its path', async () => {
    const pool = await suite.libvirt.storagePoolLookupByName({ name: suite.lab.pool.name });
    const uuid = (await virsh(['pool-uuid', suite.lab.pool.name])).trim().replaceAll('-', '');
    expect(pool.uuid.toString('hex')).toBe(uuid);
    await suite.libvirt.storagePoolRefresh({ pool });
    expect(await suite.libvirt.storagePoolGetXmlDesc({ pool })).toContain(`<path>${suite.lab.pool.path}</path>`);
  });

  it('starts and stops the inactive pool (restored afterwards)', async () => {
    const pool = await suite.libvirt.storagePoolLookupByName({ name: suite.lab.inactivePool.name });
    expect((await suite.libvirt.storagePoolGetInfo({ pool })).state).toBe(StoragePoolState.Inactive);
    try {
      await suite.libvirt.storagePoolCreate({ pool });
      expect((await virshPoolInfo(suite.lab.inactivePool.name)).State).toBe('running');
      await suite.libvirt.storagePoolDestroy({ pool });
      expect((await virshPoolInfo(suite.lab.inactivePool.name)).State).toBe('inactive');
    } finally {
      await virsh(['pool-destroy', suite.lab.inactivePool.name]).catch(() => undefined);
    }
  });

  it('a missing pool is ErrNoStoragePool', async () => {
    const err = await suite.libvirt.storagePoolLookupByName({ name: 'rpctest-no-such-pool' }).catch((e: unknown) => e);
    expect(isLibvirtError(err, 'ErrNoStoragePool')).toBe(true);
  });
});
