// kvm2's Add host wizard steps and the server's SSH identity. Each step works
// on a candidate that is not in the config yet: a provider entry's key files (or those a new entry
// will name) and the host's address, user, socket and pool. The libvirt steps run through a
// throw-away kvm2 backend for that one host, so they dial, time out and log like the provider.
// Nothing here logs or answers key material: only public keys and fingerprints.
import { dirname, join, resolve } from 'node:path';
import type { Candidate, HostKeyStep } from '@/lib/api/host-setup';
import type { Kvm2Entry } from '@/server/providers/config';
import { reasonFor } from '@/server/providers/kvm2/check';
import { createHostBackend } from '@/server/providers/kvm2/hosts';
import type { Kvm2Host } from '@/server/providers/kvm2/kvm2';
import type { ProviderEntryBase } from '@/server/providers/registry';
import type { EntryChoice, HostSetupSteps, OnboardingContext } from '../contract';
import { HostSetupInputError, HostSetupRefusedError } from '../errors';
import { dialSsh, parseSshAddress, SshError } from '@/server/ssh';
import { hashedKnownHostsLine, knownHostStanding, scanHostKey } from '@/server/ssh/host-key-scan';
import { authoriseCommand } from '@/lib/authorise-command';
import {
  appendKnownHostsLine,
  KnownHostsFileProblem,
  protectedFiles,
  readKnownHostsFile,
  refuseProtectedKnownHosts,
  writableByOthersWarnings,
} from './known-hosts-file';
import { candidateSettings, type KeyFiles } from './candidate-settings';
import { generateIdentity, identityOf, type IdentityView } from './ssh-identity';
import { checkCandidate, fixFor, listResources, openLibvirt, readCapabilities, type SetupContext, type SetupResult } from './host-steps';
import { errorMessage } from '@/lib/error-message';

/** `ssh-keygen -lf` on the host key file of that type prints the same fingerprint. */
const hostKeyFiles: Record<string, string> = {
  'ssh-ed25519': '/etc/ssh/ssh_host_ed25519_key.pub',
  'ssh-rsa': '/etc/ssh/ssh_host_rsa_key.pub',
};
const hostKeyFileOf = (keyType: string) =>
  hostKeyFiles[keyType] ?? (keyType.startsWith('ecdsa') ? '/etc/ssh/ssh_host_ecdsa_key.pub' : '/etc/ssh/ssh_host_*_key.pub');

const isKvm2 = (entry: ProviderEntryBase): entry is Kvm2Entry => entry.type === 'kvm2' && typeof (entry as Partial<Kvm2Entry>).kvm2 === 'object';

export class Kvm2HostSetup implements HostSetupSteps {
  constructor(private readonly options: OnboardingContext) {}

  kvm2Entry(provider: string): Kvm2Entry | undefined {
    return this.options.entries().find((entry): entry is Kvm2Entry => entry.name === provider && isKvm2(entry));
  }

  refuseEntry(input: EntryChoice): void {
    this.keyFiles(input);
  }

  /** The key files the candidate's provider entry names, or those the new entry will name. */
  keyFiles(input: EntryChoice): KeyFiles {
    const entry = this.kvm2Entry(input.provider);
    if (entry) {
      if (input.newEntry)
        throw new HostSetupInputError([{ path: 'newEntry', message: `provider ${JSON.stringify(input.provider)} exists already; leave newEntry out` }]);
      const block = entry.kvm2;
      return { sshKeyFile: block.sshKeyFile, knownHostsFile: block.knownHostsFile, insecureIgnoreHostKey: block.insecureIgnoreHostKey ?? false };
    }
    if (this.options.entries().some((other) => other.name === input.provider)) {
      throw new HostSetupInputError([{ path: 'provider', message: `provider ${JSON.stringify(input.provider)} is not of type kvm2` }]);
    }
    if (!input.newEntry)
      throw new HostSetupInputError([
        { path: 'newEntry', message: `there is no provider ${JSON.stringify(input.provider)}: give the key files of the new entry` },
      ]);
    this.refuseForeignDirectories(input.newEntry);
    return { ...input.newEntry, insecureIgnoreHostKey: false };
  }

  /**
   * A new entry's files may only live where the server's key files already do: beside the providers
   * config or beside an existing entry's files. The steps read them and step 1 appends to the
   * known_hosts file, which must not become a way to write anywhere the server may.
   */
  private refuseForeignDirectories(files: { sshKeyFile: string; knownHostsFile: string }): void {
    const allowed = new Set(
      this.options
        .entries()
        .filter(isKvm2)
        .flatMap((entry) => [entry.kvm2.sshKeyFile, entry.kvm2.knownHostsFile ?? ''].filter(Boolean).map((file) => dirname(file))),
    );
    if (this.options.configPath) allowed.add(dirname(this.options.configPath));
    const fields = (['sshKeyFile', 'knownHostsFile'] as const)
      .filter((key) => !allowed.has(dirname(resolve(files[key]))))
      .map((key) => ({ path: `newEntry.${key}`, message: "must be in the providers config's directory or beside an existing provider's key files" }));
    if (fields.length > 0) throw new HostSetupInputError(fields);
  }

  /**
   * Runs `work` on the candidate's known_hosts file once it is known to be safe to read and append
   * to; a refusal names the field: the new entry's, or the existing entry's config key.
   */
  private async withKnownHostsFile<T>(input: Pick<Candidate, 'provider' | 'newEntry'>, files: KeyFiles, work: (path: string) => Promise<T>): Promise<T> {
    const path = files.knownHostsFile as string;
    try {
      const sshKeyFiles = [
        files.sshKeyFile,
        ...this.options
          .entries()
          .filter(isKvm2)
          .map((entry) => entry.kvm2.sshKeyFile),
      ];
      await refuseProtectedKnownHosts(path, protectedFiles({ configPath: this.options.configPath, sshKeyFiles }));
      return await work(path);
    } catch (err) {
      if (!(err instanceof KnownHostsFileProblem)) throw err;
      if (input.newEntry) throw new HostSetupInputError([{ path: 'newEntry.knownHostsFile', message: err.message }]);
      throw new HostSetupRefusedError('ERR_UNSUPPORTED_OPERATION', `provider ${JSON.stringify(input.provider)}: kvm2.knownHostsFile ${err.message}`);
    }
  }

  /** The known_hosts text ('' without a file), refused as withKnownHostsFile says. */
  private knownHostsText(input: Pick<Candidate, 'provider' | 'newEntry'>, files: KeyFiles): Promise<string> {
    return files.knownHostsFile ? this.withKnownHostsFile(input, files, readKnownHostsFile) : Promise.resolve('');
  }

  /** Where a first provider entry keeps its key: beside the providers config. */
  private defaultKeyFile(): string | undefined {
    return this.options.configPath ? join(dirname(this.options.configPath), 'id_ed25519') : undefined;
  }

  async identities(): Promise<IdentityView[]> {
    const entries = this.options.entries().filter(isKvm2);
    const files: Array<{ provider?: string; keyFile: string }> = entries.map((entry) => ({ provider: entry.name, keyFile: entry.kvm2.sshKeyFile }));
    const fallback = this.defaultKeyFile();
    if (files.length === 0 && fallback) files.push({ keyFile: fallback });
    return Promise.all(files.map(({ provider, keyFile }) => identityOf(keyFile, provider)));
  }

  /** Generates the key pair a provider entry (or a first entry) names, when its file is missing. */
  async generateIdentity(provider: string | undefined): Promise<IdentityView> {
    const keyFile = provider ? this.kvm2Entry(provider)?.kvm2.sshKeyFile : this.defaultKeyFile();
    if (!keyFile) {
      if (provider) throw new HostSetupInputError([{ path: 'provider', message: `there is no kvm2 provider named ${JSON.stringify(provider)}` }]);
      throw new HostSetupRefusedError('ERR_UNSUPPORTED_OPERATION', 'no providers config is set (PROVIDERS_CONFIG), so there is no place for a key');
    }
    return generateIdentity({ keyFile, provider, logger: this.options.logger });
  }

  /** Step 1: the host key the address presents and how it stands against known_hosts. */
  async hostKey(input: Pick<Candidate, 'provider' | 'newEntry' | 'address'>): Promise<HostKeyStep> {
    const files = this.keyFiles(input);
    address(input.address);
    const knownHostsText = await this.knownHostsText(input, files);
    const warnings = await writableByOthersWarnings(files);
    const warned = warnings.length > 0 ? { warnings } : {};
    try {
      const scanned = await scanHostKey({ address: input.address });
      const standing = knownHostStanding(knownHostsText, scanned);
      const hostCommand = `ssh-keygen -lf ${hostKeyFileOf(scanned.keyType)}`;
      return {
        ok: standing.status !== 'changed',
        ...warned,
        ...(standing.status === 'changed'
          ? {
              failure: {
                reason: 'Unauthorized',
                message: `the host presents ${scanned.fingerprint}, but line ${standing.line} of the known_hosts file holds ${standing.knownFingerprint} for it`,
                fix: 'The host key changed (a reinstalled host), or something between this server and the host poses as it. Compare the fingerprint on the host; if the host really changed, remove the old line by hand (ssh-keygen -R) and fetch again. It is never replaced from here.',
              },
            }
          : {}),
        hostKey: {
          keyType: scanned.keyType,
          fingerprint: scanned.fingerprint,
          hostCommand,
          standing: standing.status,
          ...(standing.status === 'changed' ? { knownFingerprint: standing.knownFingerprint } : {}),
        },
      };
    } catch (err) {
      return {
        ok: false,
        ...warned,
        failure: {
          reason: 'Unreachable',
          message: errorMessage(err),
          fix: `Nothing answered SSH at ${input.address}: check the address and port, that sshd runs, and any firewall.`,
        },
      };
    }
  }

  /** Step 1, confirmed: writes the key, hashed, when it is still the one the admin compared. */
  async trustHostKey(input: Pick<Candidate, 'provider' | 'newEntry' | 'address'> & { fingerprint: string }) {
    const files = this.keyFiles(input);
    address(input.address);
    if (!files.knownHostsFile)
      throw new HostSetupRefusedError(
        'ERR_UNSUPPORTED_OPERATION',
        'this provider entry has no knownHostsFile (insecureIgnoreHostKey): there is nowhere to write the key',
      );
    await this.knownHostsText(input, files);
    const scanned = await scanHostKey({ address: input.address });
    if (scanned.fingerprint !== input.fingerprint) {
      throw new HostSetupRefusedError(
        'ERR_HOST_SETUP_CONFLICT',
        `the host now presents ${scanned.fingerprint}, not the ${input.fingerprint} you confirmed: fetch and compare again`,
      );
    }
    // Checked again right before the write: the file may have changed while the host was asked.
    const written = await this.withKnownHostsFile(input, files, async (path) => {
      const standing = knownHostStanding(await readKnownHostsFile(path), scanned);
      if (standing.status === 'changed')
        throw new HostSetupRefusedError(
          'ERR_HOST_SETUP_CONFLICT',
          `the known_hosts file holds another key for this host (line ${standing.line}); it is never replaced from here`,
        );
      if (standing.status === 'unknown') await appendKnownHostsLine(path, hashedKnownHostsLine(scanned.endpoint, scanned));
      return standing.status === 'unknown';
    });
    this.options.logger.info({ address: input.address, fingerprint: scanned.fingerprint, written }, 'host key trusted');
    const warnings = await writableByOthersWarnings(files);
    return { ok: true, written, ...(warnings.length > 0 ? { warnings } : {}) };
  }

  /** Step 2: the SSH login with the server's key. */
  async authenticate(candidate: Candidate) {
    const context = await this.context(candidate);
    const files = this.keyFiles(candidate);
    const warnings = await writableByOthersWarnings(files);
    const warned = warnings.length > 0 ? { warnings } : {};
    try {
      const connection = await dialSsh({
        address: context.host.address,
        user: context.host.user,
        keyFile: files.sshKeyFile,
        knownHostsFile: files.knownHostsFile,
        insecureIgnoreHostKey: files.insecureIgnoreHostKey,
      });
      await connection.close();
      return { ok: true, ...warned };
    } catch (err) {
      const reason = err instanceof SshError ? reasonFor(err, 'dial') : 'Unreachable';
      return { ok: false, ...warned, failure: { reason, message: errorMessage(err), fix: fixFor(reason, { ...context, err }) } };
    }
  }

  libvirt(candidate: Candidate) {
    return this.run(candidate, openLibvirt);
  }

  resources(candidate: Candidate) {
    return this.run(candidate, listResources);
  }

  capabilities(candidate: Candidate) {
    return this.run(candidate, readCapabilities);
  }

  check(candidate: Candidate) {
    return this.run(candidate, checkCandidate);
  }

  private async run<T>(candidate: Candidate, step: (context: SetupContext) => Promise<SetupResult<T>>): Promise<SetupResult<T>> {
    const context = await this.context(candidate);
    try {
      return await step(context);
    } finally {
      await context.backend.closeAll();
    }
  }

  private async context(candidate: Candidate): Promise<SetupContext> {
    const files = this.keyFiles(candidate);
    address(candidate.address);
    if (!candidate.user) throw new HostSetupInputError([{ path: 'user', message: 'is required' }]);
    const settings = candidateSettings(candidate, files);
    const host = settings.hosts[0] as Kvm2Host;
    const logger = this.options.logger.child({ host: host.name });
    const identity = await identityOf(files.sshKeyFile);
    const authorise = identity.publicKey ? authoriseCommand(identity.publicKey, host.user) : 'Generate the server key under Settings first.';
    return { backend: createHostBackend({ providerName: candidate.provider, settings, logger }), host, logger, authorise };
  }
}

function address(text: string): void {
  try {
    parseSshAddress(text);
  } catch (err) {
    throw new HostSetupInputError([{ path: 'address', message: errorMessage(err) }]);
  }
}
