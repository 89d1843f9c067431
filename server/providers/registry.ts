// Provider type → factory. The runtime builds one provider per config entry through this table;
// a type without a registered factory makes its entries unavailable (reported in the config
// status), not the whole server. The built-in types are registered in one place, provider-types.ts;
// each runtime owns its registry.
import type { ProviderCapabilities } from '@/lib/api/config';
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

/**
 * Per host of an entry, what a new version of it changes about where that host's Proxies keep
 * their volumes ("pool from "a" to "b""): a config reload refuses such a change while Proxies use
 * the host (control/config-host-guard.ts). A type whose Proxies keep nothing on hosts has none.
 */
export type StorageChanges<E extends ProviderEntryBase = ProviderEntryBase> = (before: E, after: E) => Array<{ host: string; change: string }>;

/** What a type declares its providers can do (lib/api/config.ts); `setup` is onboarding's (server/onboarding/registry.ts). */
export type DeclaredCapabilities = Omit<ProviderCapabilities, 'setup'>;

const nothingDeclared: DeclaredCapabilities = { hosts: false, placement: false, console: false };

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
  private readonly declared = new Map<string, DeclaredCapabilities>();
  private readonly storageCheckers = new Map<string, StorageChanges>();

  register<E extends ProviderEntryBase>(type: string, factory: ProviderFactory<E>, capabilities: Partial<DeclaredCapabilities> = {}): void {
    this.factories.set(type, factory as ProviderFactory);
    this.declared.set(type, { ...nothingDeclared, ...capabilities });
  }

  /** How to tell the storage changes between two versions of an entry of `type`. */
  registerStorageChanges<E extends ProviderEntryBase>(type: string, changes: StorageChanges<E>): void {
    this.storageCheckers.set(type, changes as StorageChanges);
  }

  /** The storage changes from `before` to `after` (none when the type changed or has no checker). */
  storageChanges(before: ProviderEntryBase, after: ProviderEntryBase): Array<{ host: string; change: string }> {
    const changes = before.type === after.type ? this.storageCheckers.get(after.type) : undefined;
    return changes ? changes(before, after) : [];
  }

  /** What the type declared; nothing for a type not registered. */
  capabilities(type: string): DeclaredCapabilities {
    return this.declared.get(type) ?? nothingDeclared;
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
