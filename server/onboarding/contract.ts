// What a provider type supplies for adding its hosts from the dashboard: the Add host wizard's steps
// (each an answer the wizard shows, a failure included) and the edits of its entries in the providers
// config. The generic parts (host-setup.ts picks the type, host-config.ts saves the file) know no
// provider's nouns; kvm2's onboarding lives in kvm2/ and is registered in onboarding-types.ts.
import type { z } from 'zod';
import type {
  authenticateStepSchema,
  Candidate,
  CapabilitiesStep,
  checkStepSchema,
  HostKeyStep,
  Identity,
  libvirtStepSchema,
  ResourcesStep,
  trustStepSchema,
} from '@/lib/api/host-setup';
import type { HostEdit, HostFields } from '@/server/providers/config-text-edit';
import type { ProviderEntryBase } from '@/server/providers/registry';
import type { Logger } from '@/server/telemetry/logger';

/** What every type's onboarding is built with. */
export interface OnboardingContext {
  /** the providers config file; undefined when none is set */
  configPath: string | undefined;
  /** the running config's entries, every type */
  entries: () => readonly ProviderEntryBase[];
  logger: Logger;
}

/** Key files of a provider entry a save will create (absent: the entry exists already). */
export interface NewEntryFiles {
  sshKeyFile: string;
  knownHostsFile: string;
}

export type EntryChoice = Pick<Candidate, 'provider' | 'newEntry'>;

/** The wizard's steps for one provider type (the routes under /api/host-setup and /api/ssh-identity). */
export interface HostSetupSteps {
  identities(): Promise<Identity[]>;
  generateIdentity(provider: string | undefined): Promise<Identity>;
  /** Throws HostSetupInputError when the entry named cannot take this host (key files refused or missing). */
  refuseEntry(input: EntryChoice): void;
  hostKey(input: Pick<Candidate, 'provider' | 'newEntry' | 'address'>): Promise<HostKeyStep>;
  trustHostKey(input: Pick<Candidate, 'provider' | 'newEntry' | 'address'> & { fingerprint: string }): Promise<z.infer<typeof trustStepSchema>>;
  authenticate(candidate: Candidate): Promise<z.infer<typeof authenticateStepSchema>>;
  libvirt(candidate: Candidate): Promise<z.infer<typeof libvirtStepSchema>>;
  resources(candidate: Candidate): Promise<ResourcesStep>;
  capabilities(candidate: Candidate): Promise<CapabilitiesStep>;
  check(candidate: Candidate): Promise<z.infer<typeof checkStepSchema>>;
}

/** Text edits of one type's entries in the providers config; each throws ConfigEditError for what is not there. */
export interface HostConfigEdits {
  add(text: string, options: { provider: string; host: HostFields; newEntry?: NewEntryFiles }): string;
  update(text: string, options: { provider: string; host: string; fields: HostEdit }): string;
  remove(text: string, options: { provider: string; host: string }): string;
  /**
   * What an edit changes about where the host keeps its Proxies' volumes ("pool", "socket"), in
   * words; undefined when nothing that would strand them changes.
   */
  strandingChange(options: { provider: string; host: string; before: string; after: string }): string | undefined;
  /** The entry's host names after a save, in config order. */
  hostNames(entry: ProviderEntryBase): string[];
}

export interface ProviderOnboarding {
  setup: HostSetupSteps;
  config: HostConfigEdits;
}

export type OnboardingFactory = (context: OnboardingContext) => ProviderOnboarding;
