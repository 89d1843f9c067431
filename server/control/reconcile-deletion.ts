// The deletion flow: Deleting is committed first, then the instance is deleted through the
// provider (by providerID, or by uid when only a Create intent was recorded), and only when that
// succeeded does the record go. A kill anywhere in between repeats the (idempotent) Delete.
import { deleteInstancesOwnedBy } from './instance-ops';
import type { Pass, PassOutcome } from './pass';

export async function runDeletion(pass: Pass): Promise<PassOutcome> {
  const { record, deps } = pass;
  if (pass.status.phase !== 'Deleting') {
    await pass.commit(pass.withProvisioned({ ...pass.status, phase: 'Deleting' }, { status: 'False', reason: 'Deleting', message: 'deletion requested' }));
  }
  const { providerID, instanceSpecHash } = pass.status;
  const mayHaveInstance = record.spec.mode === 'Managed' && (providerID !== undefined || instanceSpecHash !== undefined);
  if (mayHaveInstance && record.spec.mode === 'Managed') {
    const provider = deps.providers.get(record.spec.provider);
    if (!provider) {
      // Pinning the record on a provider that may never come back helps nobody; if it does come
      // back, orphan GC finds the instance by its uid, which then matches no Proxy.
      pass.logger.warn({ provider: record.spec.provider, providerID }, 'provider not configured; the instance is left for orphan GC');
    } else {
      await deps.drain?.(record.name, deps.signal);
      try {
        if (providerID !== undefined) await provider.delete(providerID, { signal: deps.signal });
        else await deleteInstancesOwnedBy({ provider, uid: record.uid, signal: deps.signal });
      } catch (err) {
        return pass.retry(err, `deleting ${providerID ?? `the instance of uid ${record.uid}`}`);
      }
    }
  }
  await deps.store.proxies.remove(record.uid);
  deps.onRemoved?.(record.name);
  pass.logger.info({ providerID }, 'proxy deleted');
  return { kind: 'removed' };
}
