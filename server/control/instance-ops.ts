// Provider operations the reconciler composes: removing every instance that carries a Proxy's uid
// (for a Create whose outcome was never recorded) and the status an observed instance implies.
import { managedTag, type Instance, type Provider } from '@/server/providers/contract';
import type { ReconcileStatus } from '@/server/store/proxies';

/**
 * Deletes every managed instance that carries `uid`. Used when a Create may have run (its intent
 * was recorded) but its providerID never was: after a crash mid-Create, before a replacement or a
 * deletion. Returns the providerIDs deleted.
 */
export async function deleteInstancesOwnedBy(options: { provider: Provider; uid: string; signal: AbortSignal }): Promise<string[]> {
  const { provider, uid, signal } = options;
  const instances = await provider.listByTag(managedTag, { signal });
  const owned = instances.filter((instance) => instance.uid === uid);
  for (const instance of owned) await provider.delete(instance.providerID, { signal });
  return owned.map((instance) => instance.providerID);
}

/** Usable means Running with an address; anything else is still provisioning. */
export const isUsable = (instance: Instance): instance is Instance & { ip: string } =>
  instance.state === 'Running' && typeof instance.ip === 'string' && instance.ip !== '';

/** The status without any instance: what is left after a delete or a NotFound. */
export function withoutInstance(status: ReconcileStatus): ReconcileStatus {
  const { providerID: _providerID, host: _host, ip: _ip, instanceSpecHash: _hash, lastError: _error, ...rest } = status;
  return rest;
}
