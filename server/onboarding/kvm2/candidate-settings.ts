// The candidate host as a kvm2 provider would see it: the settings of a provider entry with just
// that host, defaults applied, so the wizard's steps dial, time out and log like the provider.
import type { Candidate } from '@/lib/api/host-setup';
import { kvm2Defaults, type Kvm2Settings, withDefaults } from '@/server/providers/kvm2/kvm2';

/** The key files the candidate's entry names, or those a new entry will name. */
export interface KeyFiles {
  sshKeyFile: string;
  knownHostsFile: string | undefined;
  insecureIgnoreHostKey: boolean;
}

export /** The settings of a provider with just the candidate host, as the config would give them. */
function candidateSettings(candidate: Candidate, files: KeyFiles): Kvm2Settings {
  return withDefaults({
    name: candidate.provider,
    type: 'kvm2',
    kvm2: {
      sshKeyFile: files.sshKeyFile,
      ...(files.knownHostsFile ? { knownHostsFile: files.knownHostsFile } : {}),
      insecureIgnoreHostKey: files.insecureIgnoreHostKey,
      machineTypes: {},
      hosts: [
        {
          name: candidate.name ?? 'candidate',
          address: candidate.address,
          user: candidate.user ?? '',
          bridge: candidate.bridge ?? 'unset',
          socket: candidate.socket ?? kvm2Defaults.socket,
          pool: candidate.pool ?? kvm2Defaults.pool,
          ...(candidate.virtType ? { virtType: candidate.virtType } : {}),
        },
      ],
    },
  });
}
