// The one place provider types are registered: every type this server builds, by config `type`.
import type { ProviderEntry } from './config';
import { kvm2StorageChanges } from './kvm2/host-storage';
import { createKvm2Provider } from './kvm2/provider';
import { newKvm2SharedState } from './kvm2/shared-state';
import { type DeclaredCapabilities, type ProviderFactory, ProviderRegistry } from './registry';

type FactoryOf<T extends ProviderEntry['type']> = ProviderFactory<Extract<ProviderEntry, { type: T }>>;

/**
 * kvm2: the provider over SSH-forwarded libvirt (server/providers/kvm2/provider.ts); the state it
 * shares across config reloads (locks, downloads in flight) lives with the entry, not the provider;
 * its connections are fenced with the replica's leadership (kvm2/fence.ts).
 */
export const kvm2Factory: FactoryOf<'kvm2'> = (entry, context) => {
  const provider = createKvm2Provider({ entry, logger: context.logger, shared: context.lasting(newKvm2SharedState), mayAct: context.mayAct });
  return { provider, close: () => provider.close() };
};

/** kvm2 lists its hosts (pools, images, domains), places Proxies on them and serves their VMs' consoles. */
export const kvm2Capabilities: DeclaredCapabilities = { hosts: true, placement: true, console: true };

/** A registry holding every built-in provider type; the runtime's default. */
export function builtInProviderTypes(): ProviderRegistry {
  const registry = new ProviderRegistry();
  registry.register('kvm2', kvm2Factory, kvm2Capabilities);
  registry.registerStorageChanges('kvm2', kvm2StorageChanges);
  return registry;
}
