// Adding, editing and removing a host from the dashboard: the providers config file is edited in
// place (only the host's lines change, by the entry's type: HostConfigEdits), validated like a load,
// backed up and replaced atomically (server/providers/config-file.ts), then reloaded so the change
// applies at once. A host that Proxies still use is not removed, and where it keeps their volumes is
// not changed (their Delete would look in the new place and leave their volumes in the old one): the
// refusal names them. Which Proxies use a host is asked through `proxiesOnHost`: the control plane
// knows, onboarding does not.
import { ProvidersConfigError } from '@/server/providers/config';
import { ProvidersConfigFile } from '@/server/providers/config-file';
import { ConfigEditError, type HostEdit, type HostFields } from '@/server/providers/config-text-edit';
import type { Logger } from '@/server/telemetry/logger';
import type { NewEntryFiles } from './contract';
import { HostInUseError, HostSetupInputError, HostSetupRefusedError, HostStorageInUseError } from './errors';
import type { HostSetup } from './host-setup';

export interface HostConfigOptions {
  configPath: string | undefined;
  setup: HostSetup;
  /** names of the Proxies on that host of that provider (deleting ones too: their volumes are still there) */
  proxiesOnHost: (target: { provider: string; host: string }) => Promise<string[]>;
  reload: () => Promise<boolean>;
  logger: Logger;
}

export interface SavedHostsView {
  provider: string;
  hosts: string[];
  backupKept: boolean;
}

export class HostConfig {
  private readonly file: ProvidersConfigFile | undefined;

  constructor(private readonly options: HostConfigOptions) {
    this.file = options.configPath ? new ProvidersConfigFile(options.configPath) : undefined;
  }

  async add(provider: string, host: HostFields & { newEntry?: NewEntryFiles }): Promise<SavedHostsView> {
    const { newEntry, ...fields } = host;
    const edits = this.options.setup.onboardingOf(provider);
    // Refuses key files for an existing entry, and a new entry without them.
    edits.setup.refuseEntry({ provider, ...(newEntry ? { newEntry } : {}) });
    return this.save(provider, (text) => edits.config.add(text, { provider, host: fields, ...(newEntry ? { newEntry } : {}) }), {
      action: 'added',
      host: fields.name,
    });
  }

  async update(provider: string, host: string, fields: HostEdit): Promise<SavedHostsView> {
    const users = await this.options.proxiesOnHost({ provider, host });
    const edits = this.options.setup.onboardingOf(provider).config;
    return this.save(
      provider,
      (text) => {
        const edited = edits.update(text, { provider, host, fields });
        // Compared on the whole entry, defaults applied: which field the edit touched is not the question.
        const changes = users.length > 0 ? edits.strandingChange({ provider, host, before: text, after: edited }) : undefined;
        if (changes) throw new HostStorageInUseError({ host, proxies: users, changes });
        return edited;
      },
      { action: 'updated', host },
    );
  }

  async remove(provider: string, host: string): Promise<SavedHostsView> {
    const users = await this.options.proxiesOnHost({ provider, host });
    if (users.length > 0) throw new HostInUseError(host, users);
    const edits = this.options.setup.onboardingOf(provider).config;
    return this.save(provider, (text) => edits.remove(text, { provider, host }), { action: 'removed', host });
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
    return { provider, hosts: entry ? this.options.setup.onboardingOf(provider).config.hostNames(entry) : [], backupKept: true };
  }
}
