// The reconcile pass, level-based: re-read the record, observe the instance, take at most one
// provider action, write the outcome. Phases in order: deletion, Static, provider lookup, the
// Failed latch, replacement of an instance built from another spec, observation, creation.
// Before any Create or Delete the intent is committed (phase, instanceSpecHash), so a kill at any
// point leaves a record from which the next pass finishes the job.
import { cloudInitBytes, type ManagedProxySpec, type StaticProxySpec } from '@/lib/proxy-spec';
import { isNotFound } from '@/server/providers/errors';
import type { Instance, Provider } from '@/server/providers/contract';
import type { EventInput } from '@/server/store/events';
import { deleteInstancesOwnedBy, isUsable, withoutInstance } from './instance-ops';
import { instanceName } from './names';
import { Pass, type PassDeps, type PassOutcome } from './pass';
import { runDeletion } from './reconcile-deletion';
import { placementForCreate } from './reconcile-placement';

export async function reconcileProxy(deps: PassDeps, name: string): Promise<PassOutcome> {
  const record = await deps.store.proxies.get(name);
  if (!record) return { kind: 'skipped' };
  const pass = new Pass(deps, record);
  if (record.deletionRequestedAt) return runDeletion(pass);
  if (record.spec.mode === 'Static') return reconcileStatic(pass, record.spec);
  return reconcileManaged(pass, record.spec);
}

async function reconcileStatic(pass: Pass, spec: StaticProxySpec): Promise<PassOutcome> {
  const next = pass.withProvisioned(
    { ...pass.status, phase: 'Running', ip: spec.address, observedSpecHash: pass.hash, lastError: undefined },
    { status: 'True', reason: 'StaticAddress', message: `serving ${spec.address}:${spec.port}` },
  );
  const becameRunning = pass.status.phase !== 'Running';
  await pass.commit(next);
  return { kind: 'done', becameRunning };
}

async function reconcileManaged(pass: Pass, spec: ManagedProxySpec): Promise<PassOutcome> {
  const provider = pass.deps.providers.get(spec.provider);
  if (!provider) return waitForProvider(pass, spec.provider);
  const { status } = pass;
  // The latch: a permanent error holds until the spec or the providers config changes.
  if (status.phase === 'Failed' && status.observedSpecHash === pass.hash && status.failedUnderConfig === pass.deps.providers.version()) {
    return { kind: 'skipped' };
  }
  if (status.instanceSpecHash !== undefined && status.instanceSpecHash !== pass.hash) return replaceInstance(pass, provider);
  if (status.providerID !== undefined) return observeInstance(pass, { provider, providerID: status.providerID });
  return createInstance(pass, { provider, spec });
}

async function waitForProvider(pass: Pass, providerName: string): Promise<PassOutcome> {
  const reason = pass.deps.providers.unavailableReason(providerName) ?? `provider ${JSON.stringify(providerName)} is not configured`;
  await pass.commit(pass.withProvisioned({ ...pass.status, observedSpecHash: pass.hash }, { status: 'False', reason: 'ProviderUnavailable', message: reason }));
  // A config reload re-queues every Proxy; the resync looks again meanwhile.
  return { kind: 'done' };
}

async function replaceInstance(pass: Pass, provider: Provider): Promise<PassOutcome> {
  const { status } = pass;
  const what = status.providerID ?? `any instance of uid ${pass.record.uid}`;
  await pass.commit(
    pass.withProvisioned(
      { ...status, phase: 'Provisioning', observedSpecHash: pass.hash },
      { status: 'False', reason: 'Replacing', message: `the spec changed; deleting ${what}` },
    ),
    [{ type: 'Normal', reason: 'Replacing', message: `the spec changed; deleting ${what} before creating the new instance` }],
  );
  try {
    if (status.providerID !== undefined) await provider.delete(status.providerID, { signal: pass.deps.signal });
    else await deleteInstancesOwnedBy({ provider, uid: pass.record.uid, signal: pass.deps.signal });
  } catch (err) {
    return pass.retry(err, 'deleting the instance of the previous spec');
  }
  await pass.commit(withoutInstance(pass.status), [{ type: 'Normal', reason: 'InstanceDeleted', message: `deleted ${what}` }]);
  return { kind: 'requeue', afterMs: 0 };
}

interface InstanceRef {
  provider: Provider;
  providerID: string;
}

async function observeInstance(pass: Pass, { provider, providerID }: InstanceRef): Promise<PassOutcome> {
  let instance: Instance;
  try {
    instance = await provider.get(providerID, { signal: pass.deps.signal });
  } catch (err) {
    if (!isNotFound(err)) {
      // Most likely still there: a booting VM often cannot be read yet (no address source answers).
      pass.deps.onInstanceObserved?.(pass.record.name, providerID);
      return pass.fail(err, `getting ${providerID}`);
    }
    const message = `instance ${providerID} is gone; creating it again`;
    await pass.commit(
      pass.withProvisioned(
        { ...withoutInstance(pass.status), phase: 'Provisioning', observedSpecHash: pass.hash },
        { status: 'False', reason: 'InstanceNotFound', message },
      ),
      [{ type: 'Warning', reason: 'InstanceNotFound', message }],
    );
    return { kind: 'requeue', afterMs: 0 };
  }
  if (instance.state === 'Stopped') return recreateStopped(pass, { provider, providerID });
  if (instance.state === 'Paused') return leavePaused(pass, instance);
  return recordInstance(pass, { instance });
}

/**
 * An admin paused the instance on its host (to debug it, say): never resumed, replaced or deleted
 * from here. The Proxy says so, keeps its instance, and is looked at again until it runs.
 */
async function leavePaused(pass: Pass, instance: Instance): Promise<PassOutcome> {
  const message = instance.detail ?? `instance ${instance.providerID} is paused on its host; nothing here resumes or replaces it until it runs again`;
  const alreadyPaused = pass.status.conditions.some((condition) => condition.type === 'Provisioned' && condition.reason === 'InstancePaused');
  await pass.commit(
    pass.withProvisioned(
      { ...pass.status, phase: pass.status.phase === 'Pending' ? 'Provisioning' : pass.status.phase, observedSpecHash: pass.hash },
      { status: 'False', reason: 'InstancePaused', message },
    ),
    alreadyPaused ? [] : [{ type: 'Warning', reason: 'InstancePaused', message }],
  );
  return { kind: 'requeue', afterMs: pass.deps.provisioningPollMs };
}

async function recreateStopped(pass: Pass, { provider, providerID }: InstanceRef): Promise<PassOutcome> {
  const message = `instance ${providerID} is stopped; deleting and recreating it`;
  await pass.commit(
    pass.withProvisioned({ ...pass.status, phase: 'Provisioning', observedSpecHash: pass.hash }, { status: 'False', reason: 'InstanceStopped', message }),
    [{ type: 'Warning', reason: 'InstanceStopped', message }],
  );
  try {
    await provider.delete(providerID, { signal: pass.deps.signal });
  } catch (err) {
    return pass.retry(err, `deleting stopped instance ${providerID}`);
  }
  await pass.commit(withoutInstance(pass.status), [{ type: 'Normal', reason: 'InstanceDeleted', message: `deleted stopped instance ${providerID}` }]);
  return { kind: 'requeue', afterMs: 0 };
}

async function createInstance(pass: Pass, { provider, spec }: { provider: Provider; spec: ManagedProxySpec }): Promise<PassOutcome> {
  const placed = await placementForCreate(pass, { provider, spec });
  if (placed.kind === 'wait') return placed.outcome;
  const name = instanceName(pass.record.name);
  const firstAttempt = pass.status.instanceSpecHash !== pass.hash;
  // The intent: after this commit, a crash mid-Create is recovered by the same Create (adopted by
  // uid) or, if the spec changes meanwhile, by deleting whatever carries the uid.
  await pass.commit(
    pass.withProvisioned(
      { ...pass.status, phase: 'Provisioning', instanceSpecHash: pass.hash, observedSpecHash: pass.hash },
      { status: 'False', reason: 'Creating', message: `creating instance ${name}` },
    ),
    firstAttempt ? [{ type: 'Normal', reason: 'Creating', message: `creating instance ${name} on provider ${spec.provider}` }] : [],
  );
  let instance: Instance;
  try {
    instance = await provider.create(
      {
        name,
        uid: pass.record.uid,
        placement: placed.placement,
        cloudInit: cloudInitBytes(spec),
        port: spec.port,
        onStarted: (providerID) => pass.deps.onInstanceStarted?.(pass.record.name, providerID),
      },
      { signal: pass.deps.signal },
    );
  } catch (err) {
    return pass.fail(err, `creating instance ${name}`);
  }
  return recordInstance(pass, { instance, events: [{ type: 'Normal', reason: 'Created', message: `instance ${instance.providerID} created` }] });
}

async function recordInstance(pass: Pass, { instance, events = [] }: { instance: Instance; events?: EventInput[] }): Promise<PassOutcome> {
  // Observed, or made or adopted by Create: a VM that may have started before this process led.
  pass.deps.onInstanceObserved?.(pass.record.name, instance.providerID);
  const usable = isUsable(instance);
  const base = {
    ...pass.status,
    providerID: instance.providerID,
    host: instance.host,
    instanceSpecHash: pass.hash,
    observedSpecHash: pass.hash,
    lastError: undefined,
  };
  const next = usable
    ? pass.withProvisioned(
        { ...base, phase: 'Running', ip: instance.ip },
        { status: 'True', reason: 'InstanceRunning', message: `${instance.providerID} is running at ${instance.ip}` },
      )
    : pass.withProvisioned(
        { ...base, phase: 'Provisioning', ip: undefined },
        { status: 'False', reason: 'InstanceProvisioning', message: `${instance.providerID} is ${instance.state}; waiting for it to run with an address` },
      );
  const becameRunning = usable && pass.status.phase !== 'Running';
  await pass.commit(stripUndefined(next), events);
  return usable ? { kind: 'done', becameRunning } : { kind: 'requeue', afterMs: pass.deps.provisioningPollMs };
}

/** JSON drops undefined anyway; stripping keeps the unchanged-status comparison exact. */
function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}
