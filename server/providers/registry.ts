// Provider type → factory. The runtime builds one provider per config entry through this table;
// a type without a registered factory makes its entries unavailable (reported in the config
// status), not the whole server. The built-in types are registered in one place, provider-types.ts;
// each runtime owns its registry.
import type { Logger } from '@/server/telemetry/logger';
import type { Provider } from './contract';
import type { ProviderEntry } from './config';

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
  /**
   * State that outlives a config reload: the entry's next provider gets the same object (made by
   * `create` the first time), so locks and downloads in flight are shared across the swap.
   */
  lasting<T>(create: () => T): T;
  /**
   * true while this replica leads: a provider that reaches hypervisors fences its connections with
   * it (no dial, no call once not leading, beyond the reads every replica may make). Absent: no fence.
   */
  mayAct?: () => boolean;
}

export type ProviderFactory<E extends ProviderEntryBase = ProviderEntryBase> = (
  entry: E,
  context: ProviderFactoryContext,
) => ProviderHandle | Promise<ProviderHandle>;

export class ProviderTypeMissingError extends Error {
  readonly code = 'ERR_PROVIDER_TYPE_MISSING';
  constructor(
    readonly providerName: string,
    readonly providerType: string,
  ) {
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
