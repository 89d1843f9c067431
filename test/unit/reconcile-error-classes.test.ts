import { afterEach, describe, expect, it, vi } from 'vitest';
import { instanceName } from '@/server/control/names';
import { ErrNotFound, ErrPermanent, ErrQuotaExceeded, ErrTransient } from '@/server/providers/errors';
import { controlPlane, type Harness, managedProxy } from '@/test/fakes/control-plane';
import { FakeProvider } from '@/test/fakes/fake-provider';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  vi.useRealTimers();
});

const start = Date.UTC(2026, 0, 1);

// One row per error class a Create can throw: what the Proxy shows and when it is tried again.
const createReactions = [
  {
    name: 'permanent',
    error: new ErrPermanent('placement.machineType "huge" is not in kvm2.machineTypes'),
    phase: 'Failed',
    reason: 'ProvisioningFailed',
    errorClass: 'permanent',
    retryInMs: undefined,
  },
  {
    name: 'quota',
    error: new ErrQuotaExceeded('pool default: 1 GiB available, 11 GiB needed'),
    phase: 'Provisioning',
    reason: 'QuotaExceeded',
    errorClass: 'quotaExceeded',
    retryInMs: 300_000,
  },
  {
    name: 'transient',
    error: new ErrTransient('dial tcp: connection refused'),
    phase: 'Provisioning',
    reason: 'ReconcileError',
    errorClass: 'transient',
    retryInMs: 1_000,
  },
  {
    name: 'notFound (forbidden from Create, retried)',
    error: new ErrNotFound('no such volume'),
    phase: 'Provisioning',
    reason: 'ReconcileError',
    errorClass: 'notFound',
    retryInMs: 1_000,
  },
  { name: 'unclassified', error: new Error('something odd'), phase: 'Provisioning', reason: 'ReconcileError', errorClass: 'unclassified', retryInMs: 1_000 },
] as const;

describe('the reconciler reacts to each error class from Create', () => {
  it.each(createReactions)('$name', async ({ error, phase, reason, errorClass, retryInMs }) => {
    vi.useFakeTimers({ now: start });
    const provider = new FakeProvider({ name: 'fake-1' }).failNext('create', error);
    harness = await controlPlane({ providers: [provider] });
    await harness.proxies.create(managedProxy('alpha'));
    await vi.advanceTimersByTimeAsync(0);

    const status = (await harness.proxies.get('alpha')).status;
    expect(status.phase).toBe(phase);
    expect(status.lastError).toMatchObject({ class: errorClass, message: error.message });
    expect(status.conditions.find((c) => c.type === 'Provisioned')).toMatchObject({ status: 'False', reason, message: error.message });
    const warning = (await harness.proxies.events('alpha')).find((event) => event.type === 'Warning');
    expect(warning?.message).toContain(`${errorClass}: ${error.message}`);
    expect(harness.reconciler.scheduledAt('alpha')).toBe(retryInMs === undefined ? undefined : start + retryInMs);

    if (retryInMs !== undefined) {
      await vi.advanceTimersByTimeAsync(retryInMs);
      expect(provider.callsOf('create')).toHaveLength(2);
      expect((await harness.proxies.get('alpha')).status).toMatchObject({ phase: 'Running' });
      expect((await harness.proxies.get('alpha')).status.lastError).toBeUndefined();
    } else {
      await vi.advanceTimersByTimeAsync(3_600_000);
      expect(provider.callsOf('create')).toHaveLength(1);
    }
  });
});

describe('the reconciler reacts to what Get reports', () => {
  async function runningProxy(provider: FakeProvider) {
    harness = await controlPlane({ providers: [provider] });
    await harness.proxies.create(managedProxy('alpha'));
    await harness.settle();
    expect((await harness.proxies.get('alpha')).status.phase).toBe('Running');
    return `fake/${instanceName('alpha')}`;
  }

  it('recreates the instance when Get says NotFound', async () => {
    const provider = new FakeProvider({ name: 'fake-1' });
    const providerID = await runningProxy(provider);
    provider.remove(providerID);
    harness!.reconciler.enqueue('alpha');
    await harness!.settle();

    expect(provider.callsOf('create')).toHaveLength(2);
    expect(provider.instances.has(providerID)).toBe(true);
    expect((await harness!.proxies.get('alpha')).status.phase).toBe('Running');
    expect((await harness!.proxies.events('alpha')).map((event) => event.reason)).toContain('InstanceNotFound');
  });

  it('deletes and recreates a Stopped instance', async () => {
    const provider = new FakeProvider({ name: 'fake-1' });
    const providerID = await runningProxy(provider);
    provider.setState(providerID, 'Stopped');
    harness!.reconciler.enqueue('alpha');
    await harness!.settle();

    const sequence = provider.calls.map((call) => call.method);
    expect(sequence.slice(sequence.indexOf('delete') - 1)).toEqual(['get', 'delete', 'create']);
    expect(provider.instances.get(providerID)?.state).toBe('Running');
    expect((await harness!.proxies.get('alpha')).status.phase).toBe('Running');
    expect((await harness!.proxies.events('alpha')).map((event) => event.reason)).toEqual(expect.arrayContaining(['InstanceStopped', 'InstanceDeleted']));
  });

  it('latches Failed on a permanent error from Get', async () => {
    const provider = new FakeProvider({ name: 'fake-1' });
    await runningProxy(provider);
    provider.failNext('get', new ErrPermanent('host "gone" is not in kvm2.hosts'));
    harness!.reconciler.enqueue('alpha');
    await harness!.settle();
    expect((await harness!.proxies.get('alpha')).status).toMatchObject({
      phase: 'Failed',
      lastError: { class: 'permanent', message: 'host "gone" is not in kvm2.hosts' },
    });
  });

  it('keeps a Running proxy Running through a transient Get failure, with the error recorded', async () => {
    const provider = new FakeProvider({ name: 'fake-1' });
    await runningProxy(provider);
    provider.failNext('get', new ErrTransient('keepalive timeout'));
    harness!.reconciler.enqueue('alpha');
    await harness!.settle();
    const status = (await harness!.proxies.get('alpha')).status;
    expect(status.phase).toBe('Running');
    expect(status.lastError).toMatchObject({ class: 'transient' });
    expect(status.conditions.find((c) => c.type === 'Provisioned')?.status).toBe('True');
    expect(harness!.reconciler.failureCount('alpha')).toBe(1);
  });
});
