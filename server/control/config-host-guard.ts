// What a config reload must not apply: a change of where a host keeps its Proxies' volumes (a
// kvm2 host's `pool` or `socket`) while Proxies use that host. Their overlay and seed are in the
// old place; with the new value their Delete would look elsewhere, succeed, and leave the volumes
// behind where GC never looks. A hand edit is refused like an invalid file, whole: the running
// config stays (the old pool with it), the refusal is logged and shown as the config's last error,
// and the file applies at a later reload once no Proxy uses the host. Keeping the old value for
// that host alone would make the running config differ silently from the file, and a restart would
// then apply the file unchecked. Each provider type says what such a change is (its registry entry).
import type { ProviderEntryBase, ProviderRegistry } from '@/server/providers/registry';
import type { ProxyRecord } from '@/server/store';
import { proxiesOnHost } from './host-users';

/** One issue per host whose storage the new entries change while Proxies use it; none: apply. */
export function strandedHostIssues(options: {
  running: readonly ProviderEntryBase[];
  next: readonly ProviderEntryBase[];
  proxies: readonly ProxyRecord[];
  registry: Pick<ProviderRegistry, 'storageChanges'>;
}): string[] {
  const running = new Map(options.running.map((entry) => [entry.name, entry]));
  return options.next.flatMap((entry) => {
    const before = running.get(entry.name);
    if (!before) return [];
    return options.registry.storageChanges(before, entry).flatMap(({ host, change }) => {
      const users = proxiesOnHost(options.proxies, { provider: entry.name, host });
      if (users.length === 0) return [];
      return [
        `provider ${JSON.stringify(entry.name)}: host ${JSON.stringify(host)}: changing its ${change} while Proxies use it (${users.join(', ')}) ` +
          'would leave their overlays and seeds behind where their Delete no longer looks; delete them (or move them to another host) first, or revert the edit',
      ];
    });
  });
}
