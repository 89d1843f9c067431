// Software emulation is never chosen silently (issue 27, item 5): the health check's details say
// which virtualisation type new Proxies get on each host and whether libvirt offers KVM there; a
// host that offered KVM and no longer does carries a warning condition (kept across checks and
// restarts, through the recorded targets) and a warning log line; an explicit `virtType: kvm`
// never falls back: Create fails permanently, saying what to do, before anything is defined.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Monitor } from '@/server/control/monitor';
import { errorClassOf } from '@/server/providers/errors';
import type { Store } from '@/server/store';
import { monitorOf } from '@/test/support/monitor';
import { FakeHypervisor } from '@/test/fakes/fake-libvirt';
import { failureOf, makeHarness, TestMirror } from './kvm2-fixture';
import { storePerTest } from '../support/temp-store';

const mirror = new TestMirror();
beforeAll(() => mirror.start());
afterAll(() => mirror.stop());

let store: Store;
storePerTest((opened) => (store = opened));

const hypervisorOffering = (virtTypes: string[]) => {
  const hypervisor = new FakeHypervisor();
  hypervisor.virtTypes = virtTypes;
  return hypervisor;
};

describe('the virtualisation type in the health details', () => {
  it.each([
    ['detect, KVM offered', null, ['kvm', 'qemu'], { virtType: 'kvm', kvm: 'offered' }],
    ['detect, no KVM', null, ['qemu'], { virtType: 'qemu', kvm: 'not offered' }],
    ['configured qemu, KVM offered', 'qemu', ['kvm', 'qemu'], { virtType: 'qemu', kvm: 'offered' }],
    ['configured kvm, no KVM', 'kvm', ['qemu'], { virtType: 'kvm', kvm: 'not offered' }],
  ] as const)('%s', async (_what, virtType, offered, expected) => {
    const { provider } = makeHarness({ mirror, virtType, hypervisors: { h1: hypervisorOffering([...offered]) } });
    const [target] = await provider.check();
    expect(target).toMatchObject({ ready: true, reason: 'Reachable' });
    expect(target?.details).toMatchObject(expected);
  });
});

describe('a host that offered KVM and no longer does', () => {
  it('carries a warning condition from the first check that misses KVM until KVM is back, and logs a warning once', async () => {
    const hypervisor = hypervisorOffering(['kvm', 'qemu']);
    const kvm2 = makeHarness({ mirror, virtType: null, hypervisors: { h1: hypervisor } });
    const round = async (m: Monitor) => (await m.runOnce())[0]!.targets[0]!;
    const warnings = () => kvm2.logs.filter((line) => line.level === 40 && String(line.msg).includes('no longer offers KVM'));

    const first = await monitorOf({ provider: kvm2.provider, store });
    expect((await round(first)).details.kvmLostAt).toBeUndefined();

    hypervisor.virtTypes = ['qemu']; // the kvm module unloaded, or /dev/kvm lost its permissions
    const lost = await round(first);
    expect(lost).toMatchObject({ ready: true, reason: 'Reachable', details: { virtType: 'qemu', kvm: 'not offered', kvmLostAt: expect.any(String) } });
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toMatchObject({ host: 'h1' });

    // A restarted server (a new monitor over the same store) still shows it, from the same moment.
    const restarted = await monitorOf({ provider: kvm2.provider, store });
    expect((await round(restarted)).details.kvmLostAt).toBe(lost.details.kvmLostAt);
    expect(warnings()).toHaveLength(1);

    hypervisor.virtTypes = ['kvm', 'qemu'];
    const back = await round(restarted);
    expect(back.details).toMatchObject({ virtType: 'kvm', kvm: 'offered' });
    expect(back.details.kvmLostAt).toBeUndefined();
  });
});

describe('an explicit virtType: kvm', () => {
  it('never falls back: Create fails permanently, naming the setting and the fix, and defines nothing', async () => {
    const hypervisor = hypervisorOffering(['qemu']);
    const kvm2 = makeHarness({ mirror, virtType: 'kvm', hypervisors: { h1: hypervisor } });
    kvm2.seedCache(hypervisor);
    const err = await failureOf(kvm2.provider.create(kvm2.request('proxy-kvm')));
    expect(errorClassOf(err)).toBe('permanent');
    expect(err?.message).toBe(
      'host "h1" is configured with virtType kvm, but its libvirt offers no KVM (the kvm module not loaded, /dev/kvm missing or not usable by QEMU): ' +
        'fix KVM on the host, or set virtType: qemu (software emulation, many times slower) or remove it to detect',
    );
    expect([...hypervisor.domains.keys()]).toEqual([]);
  });
});
