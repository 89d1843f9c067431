// The providers the control loops use right now. A config reload swaps the whole set at once;
// every reconcile pass, check and sweep looks its provider up again, so nothing keeps using a
// provider after the swap except calls already in flight, which the closed provider fails
// transiently and the reconciler retries on the new one.
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

  /** Configured names, running or not, in config order of the last swap. */
  names(): string[] {
    return [...new Set([...this.handles.keys(), ...this.unavailable.keys()])];
  }

  /** Installs `next` and closes the handles it replaces; close failures are returned, not thrown. */
  async replace(next: ProviderSetContents): Promise<unknown[]> {
    const previous = this.handles;
    this.handles = next.handles;
    this.unavailable = next.unavailable;
    this.configVersion = next.version;
    return closeHandles(previous);
  }

  async close(): Promise<unknown[]> {
    return this.replace({ handles: new Map(), unavailable: new Map(), version: '' });
  }
}

async function closeHandles(handles: Map<string, ProviderHandle>): Promise<unknown[]> {
  const results = await Promise.allSettled([...handles.values()].map(async (handle) => handle.close?.()));
  return results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
}
