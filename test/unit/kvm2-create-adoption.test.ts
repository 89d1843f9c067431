// A repeat Create meeting a domain of the same name: adopted only when it carries kvm2's mark
// with this Proxy's UID (or none); refused permanently otherwise; a paused or suspended domain is
// never started by the operator; an off one is started and must reach running.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainState } from '@/server/libvirt';
import { errorClassOf } from '@/server/providers/errors';
import { buildMetadataXML, gen1MetadataURI, metadataURI } from '@/server/providers/kvm2/metadata';
import { makeHarness, TestMirror } from './kvm2-fixture';

const mirror = new TestMirror();
beforeAll(() => mirror.start());
afterAll(() => mirror.stop());

const domain = 'proxy-adopt';
const mark = (uid: string) => ({ [metadataURI]: buildMetadataXML({ managed: true, uid, created: '2026-01-01T00:00:00Z' }) });

async function createOver(existing: Parameters<ReturnType<typeof makeHarness>['hypervisor']['addDomain']>[0]) {
  const harness = makeHarness({ mirror });
  harness.hypervisor.addDomain(existing);
  harness.hypervisor.resetCalls();
  const outcome = await harness.provider.create(harness.request(domain)).then(
    (instance) => ({ instance, error: undefined }),
    (error: unknown) => ({ instance: undefined, error: error as Error }),
  );
  return { harness, ...outcome };
}

describe('adoption of an existing domain', () => {
  it.each([
    ['its own uid', `uid-${domain}`],
    ['an empty uid', ''],
  ])('a running domain marked with %s is adopted without touching any volume', async (_label, uid) => {
    const { harness, instance, error } = await createOver({ name: domain, state: DomainState.Running, metadata: mark(uid) });
    expect(error).toBeUndefined();
    expect(instance).toMatchObject({ providerID: `hosts/h1/domains/${domain}`, state: 'Provisioning' });
    expect(harness.hypervisor.calls.filter((call) => call.method.startsWith('storage'))).toEqual([]);
  });

  it('a marked domain that is shut off is started and waited for', async () => {
    const { harness, error } = await createOver({ name: domain, state: DomainState.Shutoff, metadata: mark(`uid-${domain}`) });
    expect(error).toBeUndefined();
    expect(harness.hypervisor.domains.get(domain)?.state).toBe(DomainState.Running);
    expect(harness.hypervisor.count('domainCreate')).toBe(1);
  });

  it('a domain without the kvm2 mark is refused permanently', async () => {
    const { harness, error } = await createOver({ name: domain, state: DomainState.Running });
    expect(errorClassOf(error)).toBe('permanent');
    expect(error?.message).toBe(`domain "${domain}" carries no kvm2 mark; it was not created by this provider`);
    expect(harness.hypervisor.count('domainCreate')).toBe(0);
  });

  it('a domain the first-generation kvm provider made is refused like any unmarked one', async () => {
    const gen1 = { [gen1MetadataURI]: '<instance><managed>true</managed><uid>x</uid></instance>' };
    const { error } = await createOver({ name: domain, state: DomainState.Shutoff, metadata: gen1 });
    expect(errorClassOf(error)).toBe('permanent');
    expect(error?.message).toContain('carries no kvm2 mark; it was not created by this provider');
  });

  it('a domain marked with another uid is refused permanently, naming both', async () => {
    const { harness, error } = await createOver({ name: domain, state: DomainState.Shutoff, metadata: mark('someone-else') });
    expect(errorClassOf(error)).toBe('permanent');
    expect(error?.message).toContain('someone-else');
    expect(error?.message).toContain(`uid-${domain}`);
    expect(harness.hypervisor.count('domainCreate')).toBe(0);
  });

  it('corrupt metadata is permanent', async () => {
    const { error } = await createOver({
      name: domain,
      state: DomainState.Running,
      metadata: { [metadataURI]: '<instance><managed>maybe</managed></instance>' },
    });
    expect(errorClassOf(error)).toBe('permanent');
    expect(error?.message).toContain('corrupt kvm2 metadata');
  });

  it.each([
    [DomainState.Paused, 'DomainPaused'],
    [DomainState.PmSuspended, 'DomainPmsuspended'],
  ])('a domain in state %s is refused permanently and never resumed', async (state, name) => {
    const { harness, error } = await createOver({ name: domain, state, metadata: mark(`uid-${domain}`) });
    expect(errorClassOf(error)).toBe('permanent');
    expect(error?.message).toBe(`domain "${domain}" is ${name} and cannot be started by the operator; resume or destroy it on the host`);
    expect(harness.hypervisor.count('domainCreate')).toBe(0);
    expect(harness.hypervisor.domains.get(domain)?.state).toBe(state);
  });
});

describe('waiting for running after the start', () => {
  it.each([
    [DomainState.Shutoff, 'DomainShutoff'],
    [DomainState.Crashed, 'DomainCrashed'],
    [DomainState.Paused, 'DomainPaused'],
  ])('a domain that is %s right after its start fails at once, transiently', async (startsAs, name) => {
    const { harness, error } = await createOver({ name: domain, state: DomainState.Shutoff, startsAs, metadata: mark(`uid-${domain}`) });
    expect(errorClassOf(error)).toBe('transient');
    expect(error?.message).toContain(`is ${name} right after its start`);
    expect(harness.hypervisor.count('domainGetState')).toBe(2);
  });

  it('a domain that never leaves nostate fails transiently once the wait runs out, after polling', async () => {
    const { harness, error } = await createOver({ name: domain, state: DomainState.Shutoff, startsAs: DomainState.NoState, metadata: mark(`uid-${domain}`) });
    expect(errorClassOf(error)).toBe('transient');
    expect(error?.message).toContain('did not reach running within 300 ms');
    expect(harness.hypervisor.count('domainGetState')).toBeGreaterThan(3);
  });
});
