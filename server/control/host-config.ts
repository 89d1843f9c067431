// Adding, editing and removing a kvm2 host from the dashboard: the providers config file is edited
// in place (only the host's lines change), validated like a load, backed up and replaced
// atomically (server/providers/config-file.ts), then reloaded so the change applies at once. A host
// that Proxies still use is not removed: the refusal names them.
import type { ProxyRecord } from '@/server/store';
import { ProvidersConfigError } from '@/server/providers/config';
import { ProvidersConfigFile } from '@/server/providers/config-file';
import { addHostText, addKvm2EntryText, ConfigEditError, type HostEdit, type HostFields, removeHostText, updateHostText } from '@/server/providers/config-text-edit';
import type { Logger } from '@/server/telemetry/logger';
import { HostInUseError, HostSetupInputError, HostSetupRefusedError } from './errors';
import type { HostSetup } from './host-setup';

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

/** The host a Proxy is on or headed for: its zone, the zone placement chose, or its providerID's host. */
function hostOf(record: ProxyRecord): string | undefined {
  const fromID = /^hosts\/([^/]+)\/domains\//.exec(record.status.providerID ?? '')?.[1];
  const zone = record.spec.mode === 'Managed' ? record.spec.placement.zone : undefined;
  return fromID ?? record.status.chosenPlacement?.zone ?? zone;
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

  update(provider: string, host: string, fields: HostEdit): Promise<SavedHostsView> {
    return this.save(provider, (text) => updateHostText(text, { provider, host, fields }), { action: 'updated', host });
  }

  async remove(provider: string, host: string): Promise<SavedHostsView> {
    const users = (await this.options.proxies())
      .filter((record) => record.spec.mode === 'Managed' && record.spec.provider === provider && hostOf(record) === host)
      .map((record) => record.name);
    if (users.length > 0) throw new HostInUseError(host, users);
    return this.save(provider, (text) => removeHostText(text, { provider, host }), { action: 'removed', host });
  }

  private async save(provider: string, edit: (text: string) => string, what: { action: string; host: string }): Promise<SavedHostsView> {
    if (!this.file) throw new HostSetupRefusedError('ERR_UNSUPPORTED_OPERATION', 'no providers config file is set (PROVIDERS_CONFIG): there is no file to save hosts to');
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
