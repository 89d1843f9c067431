// Provider type → factory. The runtime builds one provider per config entry through this table;
// a type without a registered factory makes its entries unavailable (reported in the config
// status), not the whole server. kvm2 registers itself here once its live half exists:
//
//   registerProviderType('kvm2', (entry, context) => ({ provider: newKvm2Provider(entry, ...), close: ... }));
//
import type { Logger } from '@/server/telemetry/logger';
import type { Provider } from './contract';
import type { ProviderEntry } from './config';
import { createKvm2Provider } from './kvm2/provider';

/** What every config entry has, whatever its type. */
export interface ProviderEntryBase {
  name: string;
  type: string;
}

/** A built provider and how to release what it holds (pooled connections, timers). */
export interface ProviderHandle {
  provider: Provider;
  close?: () => Promise<void>;
}

export interface ProviderFactoryContext {
  logger: Logger;
}

export type ProviderFactory<E extends ProviderEntryBase = ProviderEntryBase> = (
  entry: E,
  context: ProviderFactoryContext,
) => ProviderHandle | Promise<ProviderHandle>;

export class ProviderTypeMissingError extends Error {
  readonly code = 'ERR_PROVIDER_TYPE_MISSING';
  constructor(readonly providerName: string, readonly providerType: string) {
    super(`provider ${JSON.stringify(providerName)}: type ${providerType} has no implementation in this server yet`);
    this.name = 'ProviderTypeMissingError';
  }
}

export class ProviderRegistry {
  private readonly factories = new Map<string, ProviderFactory>();

  register<E extends ProviderEntryBase>(type: string, factory: ProviderFactory<E>): void {
    this.factories.set(type, factory as ProviderFactory);
  }

  has(type: string): boolean {
    return this.factories.has(type);
  }

  /** Builds the provider of one entry; throws ProviderTypeMissingError for an unknown type. */
  async build(entry: ProviderEntryBase, context: ProviderFactoryContext): Promise<ProviderHandle> {
    const factory = this.factories.get(entry.type);
    if (!factory) throw new ProviderTypeMissingError(entry.name, entry.type);
    return factory(entry, context);
  }
}

/** The process's registry, which the runtime uses unless given another. */
export const providerRegistry = new ProviderRegistry();

/** Registers the factory of a provider type the config schema knows. */
export function registerProviderType<T extends ProviderEntry['type']>(
  type: T,
  factory: ProviderFactory<Extract<ProviderEntry, { type: T }>>,
): void {
  providerRegistry.register(type, factory);
}

// kvm2: the provider over SSH-forwarded libvirt (server/providers/kvm2/provider.ts).
registerProviderType('kvm2', (entry, context) => {
  const provider = createKvm2Provider({ entry, logger: context.logger });
  return { provider, close: () => provider.close() };
});
