// The providers config at run time: loaded at start, watched afterwards. A valid new file is
// applied at once: an entry that did not change keeps its running provider as it is, a changed or
// new one gets a new provider, and a replaced or removed provider is closed once the work it has
// in flight is done (in the background: a download may take minutes). A changed entry's new
// provider shares the old one's lasting state (locks, downloads in flight), so the two never work
// on the same volume at once. An invalid file leaves the running providers alone and is reported,
// with every validation message, in `status()` for the dashboard; so does a file that changes the
// pool or socket of a host Proxies use (config-host-guard.ts). An unchanged file (watchers fire
// more than once per save) is not reloaded.
import { createHash } from 'node:crypto';
import { type FSWatcher, watch, watchFile, unwatchFile } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { loadProvidersConfig, ProvidersConfigError } from '@/server/providers/config';
import { type ProviderEntryBase, type ProviderHandle, ProviderRegistry } from '@/server/providers/registry';
import type { ProxyRecord } from '@/server/store';
import type { Logger } from '@/server/telemetry/logger';
import { type Clock, isoTime, type TimerHandle } from './clock';
import { strandedHostIssues } from './config-host-guard';
import { errorMessage } from '@/lib/error-message';
import type { ProviderSet } from './provider-set';

export type ConfigLoader = (path: string) => Promise<ProviderEntryBase[]>;

export interface ConfigStatus {
  /** the file watched; absent when PROVIDERS_CONFIG is not set (zero providers) */
  source?: string;
  /** when the running providers were built from the file */
  loadedAt?: string;
  providers: Array<{ name: string; type: string; available: boolean; reason?: string }>;
  /** the last load that failed and was not applied; cleared by the next good one */
  lastError?: { at: string; issues: string[] };
}

export interface ConfigManagerOptions {
  path?: string;
  loader?: ConfigLoader;
  registry: ProviderRegistry;
  providers: ProviderSet;
  logger: Logger;
  /** parent of each provider's own logger (which adds `provider` itself) */
  providerLogger: Logger;
  clock: Clock;
  debounceMs: number;
  /** after a new provider set is in place */
  onApplied: () => void;
  /** true while this replica leads; each provider fences its hypervisor connections with it */
  mayAct?: () => boolean;
  /** the Proxy records, so a reload that would strand a host's Proxies is refused (config-host-guard.ts) */
  proxies?: () => Promise<ProxyRecord[]>;
}

const digest = (text: string): string => createHash('sha256').update(text).digest('hex');

export class ConfigManager {
  private entries: ProviderEntryBase[] = [];
  private appliedDigest: string | undefined;
  private attemptedDigest: string | undefined;
  private loadedAt: string | undefined;
  private lastError: ConfigStatus['lastError'];
  private watcher: FSWatcher | undefined;
  private polling = false;
  private debounce: TimerHandle | undefined;
  private reloading: Promise<boolean> = Promise.resolve(false);
  /** per `type/name`: what the entry's successive providers share (ProviderFactoryContext.lasting) */
  private readonly lasting = new Map<string, unknown>();

  constructor(private readonly options: ConfigManagerOptions) {}

  status(): ConfigStatus {
    const available = new Set(this.options.providers.list().map((provider) => provider.name));
    return {
      ...(this.options.path ? { source: this.options.path } : {}),
      ...(this.loadedAt ? { loadedAt: this.loadedAt } : {}),
      providers: this.entries.map((entry) => {
        const reason = this.options.providers.unavailableReason(entry.name);
        return { name: entry.name, type: entry.type, available: available.has(entry.name), ...(reason ? { reason } : {}) };
      }),
      ...(this.lastError ? { lastError: this.lastError } : {}),
    };
  }

  /** The validated entries of the running config (they name files, never hold key material). */
  currentEntries(): readonly ProviderEntryBase[] {
    return this.entries;
  }

  /** Loads the file now (serialised with watcher-triggered loads); true when a new set was applied. */
  reload(): Promise<boolean> {
    this.reloading = this.reloading.then(() => this.load());
    return this.reloading;
  }

  startWatching(): void {
    const { path } = this.options;
    if (!path || this.watcher || this.polling) return;
    const onChange = () => this.scheduleReload();
    try {
      // The directory, not the file: editors and ConfigMaps replace the file by rename.
      this.watcher = watch(dirname(path), { persistent: false }, (_event, name) => {
        if (name === null || name === basename(path)) onChange();
      });
      this.watcher.on('error', (err) => this.options.logger.warn({ error: errorMessage(err) }, 'providers config watch failed'));
    } catch (err) {
      this.options.logger.warn({ error: errorMessage(err) }, 'providers config directory cannot be watched; polling the file');
      watchFile(path, { interval: 2_000, persistent: false }, onChange);
      this.polling = true;
    }
  }

  async stop(): Promise<void> {
    if (this.debounce !== undefined) this.options.clock.clearTimeout(this.debounce);
    this.debounce = undefined;
    this.watcher?.close();
    this.watcher = undefined;
    if (this.polling && this.options.path) unwatchFile(this.options.path);
    this.polling = false;
    await this.reloading;
  }

  private scheduleReload(): void {
    if (this.debounce !== undefined) this.options.clock.clearTimeout(this.debounce);
    this.debounce = this.options.clock.setTimeout(() => {
      this.debounce = undefined;
      void this.reload();
    }, this.options.debounceMs);
  }

  private async load(): Promise<boolean> {
    const { path, logger } = this.options;
    if (!path) return false;
    let text: string | undefined;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      text = undefined; // the loader reports the reason
    }
    const fileDigest = text === undefined ? undefined : digest(text);
    if (fileDigest !== undefined && fileDigest === this.attemptedDigest) return false;
    this.attemptedDigest = fileDigest;
    let entries: ProviderEntryBase[];
    try {
      entries = await (this.options.loader ?? loadProvidersConfig)(path);
    } catch (err) {
      const issues = err instanceof ProvidersConfigError ? [...err.issues] : [errorMessage(err)];
      this.lastError = { at: isoTime(this.options.clock), issues };
      logger.warn(
        { source: path, issues },
        this.appliedDigest ? 'providers config rejected; keeping the running config' : 'providers config rejected; running with no providers',
      );
      return false;
    }
    const stranded = this.options.proxies
      ? strandedHostIssues({ running: this.entries, next: entries, proxies: await this.options.proxies(), registry: this.options.registry })
      : [];
    if (stranded.length > 0) {
      // Asked again at the next reload (a host save, the file touched): the Proxies may be gone by then.
      this.attemptedDigest = undefined;
      this.lastError = { at: isoTime(this.options.clock), issues: stranded };
      logger.warn({ source: path, issues: stranded }, 'providers config refused: it changes where Proxies keep their volumes; keeping the running config');
      return false;
    }
    await this.apply(entries, fileDigest ?? '');
    this.appliedDigest = fileDigest;
    return true;
  }

  private async apply(entries: ProviderEntryBase[], version: string): Promise<void> {
    const { registry, providers, logger, providerLogger } = this.options;
    const handles = new Map<string, ProviderHandle>();
    const unavailable = new Map<string, string>();
    const previous = new Map(this.entries.map((entry) => [entry.name, JSON.stringify(entry)]));
    for (const entry of entries) {
      const running = providers.handle(entry.name);
      if (running && previous.get(entry.name) === JSON.stringify(entry)) {
        handles.set(entry.name, running);
        continue;
      }
      const lasting = <T>(create: () => T): T => {
        const key = `${entry.type}/${entry.name}`;
        if (!this.lasting.has(key)) this.lasting.set(key, create());
        return this.lasting.get(key) as T;
      };
      try {
        handles.set(
          entry.name,
          await registry.build(entry, { logger: providerLogger, lasting, ...(this.options.mayAct ? { mayAct: this.options.mayAct } : {}) }),
        );
      } catch (err) {
        unavailable.set(entry.name, errorMessage(err));
        logger.warn({ provider: entry.name, type: entry.type, error: errorMessage(err) }, 'provider unavailable');
      }
    }
    void providers.replace({ handles, unavailable, version }).then((closeFailures) => {
      for (const failure of closeFailures) logger.warn({ error: errorMessage(failure) }, 'closing a replaced provider failed');
    });
    this.entries = entries;
    this.loadedAt = isoTime(this.options.clock);
    this.lastError = undefined;
    logger.info({ source: this.options.path, providers: entries.map((entry) => entry.name) }, 'providers config applied');
    this.options.onApplied();
  }
}
