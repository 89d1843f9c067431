// The providers the control loops use right now. A config reload swaps the whole set at once;
// every reconcile pass, check and sweep looks its provider up again, so nothing keeps using a
// provider after the swap except calls already in flight. A handle carried over into the new set
// stays as it is; the others are closed, which for kvm2 waits for their calls in flight.
import type { Provider } from '@/server/providers/contract';
import type { ProviderHandle } from '@/server/providers/registry';

export interface ProviderLookup {
  get(name: string): Provider | undefined;
  list(): Provider[];
  /** why a configured provider is not running (type without implementation, build failure) */
  unavailableReason(name: string): string | undefined;
  /** identifies the config the providers were built from; a Failed latch holds only under it */
  version(): string;
}

export interface ProviderSetContents {
  handles: Map<string, ProviderHandle>;
  /** configured entries that could not be built, with the reason */
  unavailable: Map<string, string>;
  /** digest of the config text the set was built from */
  version: string;
}

export class ProviderSet implements ProviderLookup {
  private handles = new Map<string, ProviderHandle>();
  private unavailable = new Map<string, string>();
  private configVersion = '';
  private readonly closing = new Set<Promise<unknown[]>>();

  get(name: string): Provider | undefined {
    return this.handles.get(name)?.provider;
  }

  list(): Provider[] {
    return [...this.handles.values()].map((handle) => handle.provider);
  }

  unavailableReason(name: string): string | undefined {
    return this.unavailable.get(name);
  }

  version(): string {
    return this.configVersion;
  }

  /** The running handle of `name`, for a reload that keeps an unchanged entry's provider. */
  handle(name: string): ProviderHandle | undefined {
    return this.handles.get(name);
  }

  /** Configured names, running or not, in config order of the last swap. */
  names(): string[] {
    return [...new Set([...this.handles.keys(), ...this.unavailable.keys()])];
  }

  /**
   * Installs `next` at once and closes the handles it no longer holds; the promise settles when
   * those are closed, with the close failures (never thrown).
   */
  replace(next: ProviderSetContents): Promise<unknown[]> {
    const kept = new Set(next.handles.values());
    const retired = [...this.handles.values()].filter((handle) => !kept.has(handle));
    this.handles = next.handles;
    this.unavailable = next.unavailable;
    this.configVersion = next.version;
    const closing = closeHandles(retired);
    this.closing.add(closing);
    void closing.then(() => this.closing.delete(closing));
    return closing;
  }

  /** Closes every provider, and waits for the ones an earlier swap is still closing. */
  async close(): Promise<unknown[]> {
    const earlier = [...this.closing];
    const failures = await this.replace({ handles: new Map(), unavailable: new Map(), version: '' });
    return [...failures, ...(await Promise.all(earlier)).flat()];
  }
}

async function closeHandles(handles: ProviderHandle[]): Promise<unknown[]> {
  const results = await Promise.allSettled(handles.map(async (handle) => handle.close?.()));
  return results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
}
