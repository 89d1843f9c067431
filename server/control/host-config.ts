// Adding, editing and removing a kvm2 host from the dashboard: the providers config file is edited
// in place (only the host's lines change), validated like a load, backed up and replaced
// atomically (server/providers/config-file.ts), then reloaded so the change applies at once. A host
// that Proxies still use is not removed, and its pool or socket is not changed (their Delete would
// look in the new place and leave their volumes in the old one): the refusal names them.
import type { ProxyRecord } from '@/server/store';
import { parseProvidersConfig, ProvidersConfigError, type Kvm2Entry } from '@/server/providers/config';
import { ProvidersConfigFile } from '@/server/providers/config-file';
import {
  addHostText,
  addKvm2EntryText,
  ConfigEditError,
  type HostEdit,
  type HostFields,
  removeHostText,
  updateHostText,
} from '@/server/providers/config-text-edit';
import type { Logger } from '@/server/telemetry/logger';
import { describeStorageChanges, hostStorageChanges, type HostStorageChange } from '@/server/providers/kvm2/host-storage';
import { HostInUseError, HostSetupInputError, HostSetupRefusedError, HostStorageInUseError } from './errors';
import type { HostSetup } from './host-setup';
import { proxiesOnHost } from './host-users';

export interface HostConfigOptions {
  configPath: string | undefined;
  setup: HostSetup;
  proxies: () => Promise<ProxyRecord[]>;
  reload: () => Promise<boolean>;
  logger: Logger;
}

export interface SavedHostsView {
  provider: string;
  hosts: string[];
  backupKept: boolean;
}

/** The kvm2 entry `provider` of a config text, or undefined when the text does not validate (the save reports why). */
function kvm2EntryOf(text: string, provider: string): Kvm2Entry | undefined {
  try {
    const entry = parseProvidersConfig(text).find((candidate) => candidate.name === provider);
    return entry?.type === 'kvm2' ? entry : undefined;
  } catch {
    return undefined;
  }
}

function storageChangesOf(options: { provider: string; host: string; before: string; after: string }): HostStorageChange[] {
  const before = kvm2EntryOf(options.before, options.provider);
  const after = kvm2EntryOf(options.after, options.provider);
  if (!before || !after) return [];
  return hostStorageChanges(before, after).filter((change) => change.host === options.host);
}

export class HostConfig {
  private readonly file: ProvidersConfigFile | undefined;

  constructor(private readonly options: HostConfigOptions) {
    this.file = options.configPath ? new ProvidersConfigFile(options.configPath) : undefined;
  }

  async add(provider: string, host: HostFields & { newEntry?: { sshKeyFile: string; knownHostsFile: string } }): Promise<SavedHostsView> {
    const { newEntry, ...fields } = host;
    // Refuses key files for an existing entry, and a new entry without them.
    this.options.setup.keyFiles({ provider, ...(newEntry ? { newEntry } : {}) });
    const edit = newEntry
      ? (text: string) => addKvm2EntryText(text, { provider, ...newEntry, host: fields })
      : (text: string) => addHostText(text, { provider, host: fields });
    return this.save(provider, edit, { action: 'added', host: fields.name });
  }

  async update(provider: string, host: string, fields: HostEdit): Promise<SavedHostsView> {
    const users = proxiesOnHost(await this.options.proxies(), { provider, host });
    return this.save(
      provider,
      (text) => {
        const edited = updateHostText(text, { provider, host, fields });
        // Compared on the whole entry, defaults applied: `pool: default` added or a pool removed
        // back to the default is no change; which field the edit touched is not the question.
        const changes = users.length > 0 ? storageChangesOf({ provider, host, before: text, after: edited }) : [];
        if (changes.length > 0) throw new HostStorageInUseError({ host, proxies: users, changes: describeStorageChanges(changes) });
        return edited;
      },
      { action: 'updated', host },
    );
  }

  async remove(provider: string, host: string): Promise<SavedHostsView> {
    const users = proxiesOnHost(await this.options.proxies(), { provider, host });
    if (users.length > 0) throw new HostInUseError(host, users);
    return this.save(provider, (text) => removeHostText(text, { provider, host }), { action: 'removed', host });
  }

  private async save(provider: string, edit: (text: string) => string, what: { action: string; host: string }): Promise<SavedHostsView> {
    if (!this.file)
      throw new HostSetupRefusedError('ERR_UNSUPPORTED_OPERATION', 'no providers config file is set (PROVIDERS_CONFIG): there is no file to save hosts to');
    let saved;
    try {
      saved = await this.file.update(edit);
    } catch (err) {
      if (err instanceof ConfigEditError) throw new HostSetupInputError([{ path: '', message: err.message }]);
      // The issues name entries and fields, never the file's path (the error's message does).
      if (err instanceof ProvidersConfigError) throw new HostSetupInputError(err.issues.map((issue) => ({ path: '', message: issue })));
      throw err;
    }
    this.options.logger.info({ provider, host: what.host }, `host ${what.action} in the providers config`);
    await this.options.reload();
    const entry = saved.entries.find((candidate) => candidate.name === provider);
    return { provider, hosts: entry?.kvm2.hosts.map((host) => host.name) ?? [], backupKept: true };
  }
}
