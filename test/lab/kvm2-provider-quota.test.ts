// The pool-space precheck against the lab's real pool: a diskSizeGb larger than the pool's free
// space is ErrQuotaExceeded naming the pool, the bytes available and the bytes needed, before any
// volume exists; a pool that is defined but not running is permanent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorClassOf } from '@/server/providers/errors';
import { neededBytes } from '@/server/providers/kvm2/image';
import { loadLab, virsh, type Lab } from './harness/lab';
import { failureOf, Kvm2LabRun } from './kvm2-provider-support';

let lab: Lab;
let run: Kvm2LabRun;

beforeAll(() => {
  lab = loadLab();
  run = new Kvm2LabRun(lab);
});
afterAll(async () => {
  await run.cleanUp();
});

const gib = 1024 ** 3;
const request = (name: string) => ({
  name,
  uid: `uid-${name}`,
  placement: { zone: 'lab1', machineType: 'small', image: 'lab' },
  cloudInit: '',
  port: 3128,
});

/** The pool's free bytes as root's virsh reports them. */
async function availableBytes(): Promise<number> {
  const info = await virsh(['pool-info', '--bytes', lab.pool.name]);
  const match = /Available:\s+(\d+)/.exec(info);
  if (!match?.[1]) throw new Error(`cannot read Available from virsh pool-info: ${info}`);
  return Number(match[1]);
}

describe('the pool-space precheck on the lab', () => {
  it('a diskSizeGb larger than the free space is ErrQuotaExceeded with the numbers, and nothing is created', async () => {
    const diskSizeGb = Math.ceil((await availableBytes()) / gib) + 100;
    const provider = run.provider({ diskSizeGb });
    const name = run.domainName('quota');
    const error = await failureOf(provider.create(request(name)));
    expect(errorClassOf(error)).toBe('quotaExceeded');
    const numbers = /storage pool "default" on host lab1 has (\d+) bytes available, (\d+) needed/.exec(error?.message ?? '');
    expect(numbers, error?.message).not.toBeNull();
    const [available, needed] = [Number(numbers?.[1]), Number(numbers?.[2])];
    expect(needed).toBe(neededBytes({ imageBytes: lab.imageServer.image.size, diskSizeGb }));
    expect(available).toBeLessThan(needed);
    expect(Math.abs(available - (await availableBytes()))).toBeLessThan(gib);
    expect((await run.volumes()).filter((volume) => volume.startsWith(name) || volume.startsWith(`base-${run.entryName}-`))).toEqual([]);
  });

  it('a pool that is not running fails permanently: storage pool is not running', async () => {
    const provider = run.provider({
      hosts: [{ name: 'lab1', address: lab.hosts[0]!.address, user: lab.user, bridge: lab.bridge, pool: lab.inactivePool.name, virtType: 'qemu' }],
    });
    const error = await failureOf(provider.create(request(run.domainName('stopped-pool'))));
    expect(errorClassOf(error)).toBe('permanent');
    expect(error?.message).toContain('storage pool is not running');
    expect(error?.message).toContain(lab.inactivePool.name);
  });
});
