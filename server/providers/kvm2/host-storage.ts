// The fields of a kvm2 host that say where its Proxies' volumes are: `pool` (their overlay and
// seed live there) and `socket` (the libvirtd that holds that pool). Changing either while Proxies
// use the host makes their later Delete look in the wrong place and leave the volumes behind,
// where GC (which lists domains, not volumes) never finds them. The dashboard's host save and the
// config reload refuse such a change; this compares two versions of an entry for them.
import type { Kvm2Entry } from '@/server/providers/config';
import { withDefaults } from './kvm2';

type HostStorageField = 'pool' | 'socket';

interface HostStorageChange {
  host: string;
  field: HostStorageField;
  /** effective values (defaults applied) */
  from: string;
  to: string;
}

const storageFields: readonly HostStorageField[] = ['pool', 'socket'];

/** Hosts in both versions whose effective pool or socket differs, in the newer version's order. */
function hostStorageChanges(before: Kvm2Entry, after: Kvm2Entry): HostStorageChange[] {
  const previous = new Map(withDefaults(before).hosts.map((host) => [host.name, host]));
  return withDefaults(after).hosts.flatMap((host) => {
    const old = previous.get(host.name);
    if (!old) return [];
    return storageFields.filter((field) => old[field] !== host[field]).map((field) => ({ host: host.name, field, from: old[field], to: host[field] }));
  });
}

/**
 * Per host, its storage changes in words ("pool from "a" to "b" and socket from …"): kvm2's
 * registry entry for the config reload's guard, and the dashboard's host save.
 */
export function kvm2StorageChanges(before: Kvm2Entry, after: Kvm2Entry): Array<{ host: string; change: string }> {
  const byHost = new Map<string, HostStorageChange[]>();
  for (const change of hostStorageChanges(before, after)) byHost.set(change.host, [...(byHost.get(change.host) ?? []), change]);
  return [...byHost].map(([host, changes]) => ({
    host,
    change: changes.map((change) => `${change.field} from ${JSON.stringify(change.from)} to ${JSON.stringify(change.to)}`).join(' and '),
  }));
}
