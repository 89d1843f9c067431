// Validated kvm2 settings for unit tests: a `kvm2:` block with the required fields filled in
// (key paths that need not exist, one machine type), going through the real schema and defaults.
import { validateProvidersConfig, type Kvm2Entry } from '@/server/providers/config';
import { withDefaults, type Kvm2Settings } from '@/server/providers/kvm2/kvm2';

export function kvm2Settings(block: Record<string, unknown>, name = 'kvm2-home'): Kvm2Settings {
  const kvm2 = { sshKeyFile: '/k', knownHostsFile: '/kh', machineTypes: { small: { vcpus: 1, memoryMiB: 512 } }, ...block };
  return withDefaults(validateProvidersConfig([{ name, type: 'kvm2', kvm2 }])[0] as Kvm2Entry);
}
