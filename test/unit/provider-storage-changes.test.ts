// Where a host keeps its Proxies' volumes is a provider type's own knowledge: the config reload's
// guard (server/control/config-host-guard.ts) asks the registry, which asks the type (kvm2: a
// host's effective pool or socket), and knows nothing of kvm2 itself.
import { describe, expect, it } from 'vitest';
import { strandedHostIssues } from '@/server/control/config-host-guard';
import type { Kvm2Entry } from '@/server/providers/config';
import { builtInProviderTypes } from '@/server/providers/provider-types';
import { ProviderRegistry } from '@/server/providers/registry';
import { proxyRecordOn } from '@/test/support/host-config';

const host = (name: string, extra: Record<string, string> = {}) => ({ name, address: `${name}.lan`, user: 'virt', bridge: 'br0', ...extra });

function entry(hosts: Array<ReturnType<typeof host>>): Kvm2Entry {
  return {
    name: 'home',
    type: 'kvm2',
    kvm2: { sshKeyFile: '/dev/null', insecureIgnoreHostKey: true, machineTypes: {}, images: {}, hosts },
  } as unknown as Kvm2Entry;
}

describe('storage changes per provider type', () => {
  const registry = builtInProviderTypes();

  it('kvm2: names each host whose effective pool or socket changes, a default spelled out being no change', () => {
    const before = entry([host('a'), host('b'), host('c', { pool: 'fast' })]);
    const after = entry([host('a', { pool: 'default' }), host('b', { pool: 'big', socket: '/run/libvirt/other-sock' }), host('c', { pool: 'fast' })]);
    expect(registry.storageChanges(before, after)).toEqual([
      { host: 'b', change: expect.stringMatching(/^pool from "default" to "big" and socket from ".+" to "\/run\/libvirt\/other-sock"$/) },
    ]);
  });

  it('none for a type without a checker, or when the entry changed type', () => {
    const bare = new ProviderRegistry();
    expect(bare.storageChanges(entry([host('a')]), entry([host('a', { pool: 'big' })]))).toEqual([]);
    expect(registry.storageChanges({ name: 'home', type: 'other' }, entry([host('a', { pool: 'big' })]))).toEqual([]);
  });

  it('the guard refuses a change only for hosts Proxies use, through whichever registry it is given', () => {
    const before = entry([host('a'), host('b')]);
    const after = entry([host('a', { pool: 'big' }), host('b', { pool: 'big' })]);
    const proxies = [proxyRecordOn('p1', 'b', { byInstance: true })];
    const issues = strandedHostIssues({ running: [before], next: [after], proxies, registry });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toContain('host "b": changing its pool from "default" to "big" while Proxies use it (p1)');
    expect(strandedHostIssues({ running: [before], next: [after], proxies, registry: new ProviderRegistry() })).toEqual([]);
  });
});
