// kvm2's entries in the providers config, as the dashboard's host saves edit them: hosts under
// `kvm2.hosts`, a new entry with its key files, and the pool or socket change that would strand the
// Proxies on a host (compared on the whole entry with defaults applied, so `pool: default` added is
// no change).
import { parseProvidersConfig, type Kvm2Entry } from '@/server/providers/config';
import { addHostText, addKvm2EntryText, removeHostText, updateHostText } from '@/server/providers/config-text-edit';
import { kvm2StorageChanges } from '@/server/providers/kvm2/host-storage';
import type { ProviderEntryBase } from '@/server/providers/registry';
import type { HostConfigEdits } from '../contract';

/** The kvm2 entry `provider` of a config text, or undefined when the text does not validate (the save reports why). */
function kvm2EntryOf(text: string, provider: string): Kvm2Entry | undefined {
  try {
    const entry = parseProvidersConfig(text).find((candidate) => candidate.name === provider);
    return entry?.type === 'kvm2' ? entry : undefined;
  } catch {
    return undefined;
  }
}

export const kvm2ConfigEdits: HostConfigEdits = {
  add: (text, { provider, host, newEntry }) => (newEntry ? addKvm2EntryText(text, { provider, ...newEntry, host }) : addHostText(text, { provider, host })),
  update: (text, options) => updateHostText(text, options),
  remove: (text, options) => removeHostText(text, options),
  strandingChange: ({ provider, host, before, after }) => {
    const was = kvm2EntryOf(before, provider);
    const is = kvm2EntryOf(after, provider);
    if (!was || !is) return undefined;
    return kvm2StorageChanges(was, is).find((change) => change.host === host)?.change;
  },
  hostNames: (entry: ProviderEntryBase) => (entry as Partial<Kvm2Entry>).kvm2?.hosts.map((host) => host.name) ?? [],
};
