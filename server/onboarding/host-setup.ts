// The Add host wizard's steps and the server's SSH identity, for the HTTP routes, over whichever
// provider type the candidate's entry is: each registered type's onboarding answers for its own
// entries. A provider name no entry has is a new entry; the request bodies name no type, so it is
// the first registered type's (kvm2's), which also refuses what it cannot take, as it always did.
import type { Candidate, Identity } from '@/lib/api/host-setup';
import type { EntryChoice, OnboardingContext, ProviderOnboarding } from './contract';
import { HostSetupRefusedError } from './errors';
import type { OnboardingRegistry } from './registry';

export interface HostSetupOptions extends OnboardingContext {
  types: OnboardingRegistry;
}

type HostKeyInput = Pick<Candidate, 'provider' | 'newEntry' | 'address'>;

export class HostSetup {
  private readonly byType: Map<string, ProviderOnboarding>;

  constructor(private readonly options: HostSetupOptions) {
    this.byType = options.types.build({ configPath: options.configPath, entries: options.entries, logger: options.logger });
  }

  /** The onboarding of the entry `provider` names, or else the one new entries get. */
  onboardingOf(provider: string | undefined): ProviderOnboarding {
    const entry = provider === undefined ? undefined : this.options.entries().find((candidate) => candidate.name === provider);
    const own = entry ? this.byType.get(entry.type) : undefined;
    const chosen = own ?? this.byType.values().next().value;
    if (!chosen) throw new HostSetupRefusedError('ERR_UNSUPPORTED_OPERATION', 'no provider type of this server adds hosts from the dashboard');
    return chosen;
  }

  /** Throws HostSetupInputError when the entry named cannot take a host as given (key files refused or missing). */
  refuseEntry(input: EntryChoice): void {
    this.onboardingOf(input.provider).setup.refuseEntry(input);
  }

  async identities(): Promise<Identity[]> {
    const lists = await Promise.all([...this.byType.values()].map((onboarding) => onboarding.setup.identities()));
    return lists.flat();
  }

  generateIdentity(provider: string | undefined) {
    return this.onboardingOf(provider).setup.generateIdentity(provider);
  }

  hostKey(input: HostKeyInput) {
    return this.onboardingOf(input.provider).setup.hostKey(input);
  }

  trustHostKey(input: HostKeyInput & { fingerprint: string }) {
    return this.onboardingOf(input.provider).setup.trustHostKey(input);
  }

  authenticate(candidate: Candidate) {
    return this.onboardingOf(candidate.provider).setup.authenticate(candidate);
  }

  libvirt(candidate: Candidate) {
    return this.onboardingOf(candidate.provider).setup.libvirt(candidate);
  }

  resources(candidate: Candidate) {
    return this.onboardingOf(candidate.provider).setup.resources(candidate);
  }

  capabilities(candidate: Candidate) {
    return this.onboardingOf(candidate.provider).setup.capabilities(candidate);
  }

  check(candidate: Candidate) {
    return this.onboardingOf(candidate.provider).setup.check(candidate);
  }
}
