// What the host saves and the wizard refuse, with nothing written: a host Proxies still use (the
// refusal names them), a save that fails validation (the field named, the file's path not), key
// files for an entry that exists or missing for one that does not, and a new entry's files outside
// the directories the server's key files live in.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HostInUseError, HostSetupInputError } from '@/server/onboarding/errors';
import type { HostConfig } from '@/server/onboarding/host-config';
import type { HostSetup } from '@/server/onboarding/host-setup';
import type { ProxyRecord } from '@/server/store';
import { createLogger } from '@/server/telemetry/logger';
import { tempDir } from '@/test/fakes/control-plane';
import { hostConfigOver } from '@/test/support/host-config';

const logger = createLogger({ level: 'silent' });
let dir: ReturnType<typeof tempDir>;
let path: string;
let text: string;
let proxies: ProxyRecord[];
let reloads: number;
let setup: HostSetup;
let hosts: HostConfig;

const proxyOn = (name: string, zone: string): ProxyRecord =>
  ({
    uid: `uid-${name}`,
    name,
    spec: { mode: 'Managed', provider: 'home', placement: { zone, machineType: 'small', image: 'debian' }, port: 3128, labels: {}, cloudInit: '' },
    status: { phase: 'Running', conditions: [] },
    generation: 1,
    createdAt: '',
    updatedAt: '',
  }) as ProxyRecord;

beforeEach(() => {
  dir = tempDir('host-config-');
  path = join(dir.path, 'providers.yaml');
  text = `- name: home\n  type: kvm2\n  kvm2:\n    sshKeyFile: ${dir.path}/keys/id_ed25519\n    knownHostsFile: ${dir.path}/keys/known_hosts\n    machineTypes:\n      small: {vcpus: 1, memoryMiB: 512}\n    hosts:\n      - name: a\n        address: a.lan\n        user: virt\n        bridge: br0\n      - name: b\n        address: b.lan\n        user: virt\n        bridge: br0\n`;
  writeFileSync(path, text);
  proxies = [];
  reloads = 0;
  ({ setup, hosts } = hostConfigOver({ configPath: path, proxies: () => proxies, reloaded: () => (reloads += 1), logger }));
});
afterEach(() => dir.remove());

describe('host saves', () => {
  it('refuses to remove a host that Proxies use, naming them, and removes it once they are gone', async () => {
    proxies = [proxyOn('p1', 'a'), proxyOn('p2', 'b'), proxyOn('p3', 'a')];
    const refusal = hosts.remove('home', 'a');
    await expect(refusal).rejects.toThrow(HostInUseError);
    await expect(refusal).rejects.toThrow('host "a" still has Proxies: p1, p3');
    expect(readFileSync(path, 'utf8')).toBe(text);
    proxies = [proxyOn('p2', 'b')];
    await expect(hosts.remove('home', 'a')).resolves.toEqual({ provider: 'home', hosts: ['b'], backupKept: true });
    expect(reloads).toBe(1);
  });

  it('names the problem of a save that fails validation, without the file path, and writes nothing', async () => {
    const save = hosts.add('home', { name: 'b', address: 'c.lan', user: 'virt', bridge: 'br0' });
    await expect(save).rejects.toThrow(HostSetupInputError);
    const err = (await save.catch((caught: unknown) => caught)) as HostSetupInputError;
    expect(err.fields).toEqual([{ path: '', message: 'provider "home": kvm2.hosts[2]: name "b" is already used by kvm2.hosts[1]' }]);
    expect(err.message).not.toContain(dir.path);
    await expect(hosts.remove('home', 'nope')).rejects.toThrow('there is no host named "nope"');
    await expect(hosts.update('elsewhere', 'a', { user: 'x' })).rejects.toThrow('no provider entry named "elsewhere"');
    expect(readFileSync(path, 'utf8')).toBe(text);
    expect(reloads).toBe(0);
  });
});

describe('key files of the candidate', () => {
  it('wants them for a new entry only, and only where the key files already live', () => {
    const files = { sshKeyFile: join(dir.path, 'new_key'), knownHostsFile: join(dir.path, 'keys', 'known_hosts2') };
    expect(() => setup.refuseEntry({ provider: 'home', newEntry: files })).toThrow('provider "home" exists already; leave newEntry out');
    expect(() => setup.refuseEntry({ provider: 'other' })).toThrow('there is no provider "other": give the key files of the new entry');
    expect(() => setup.refuseEntry({ provider: 'other', newEntry: files })).not.toThrow();
    let refusal: unknown;
    try {
      setup.refuseEntry({ provider: 'other', newEntry: { sshKeyFile: '/etc/shadow', knownHostsFile: `${dir.path}/keys/../../../root/.bashrc` } });
    } catch (err) {
      refusal = err;
    }
    expect((refusal as HostSetupInputError).fields.map((field) => field.path)).toEqual(['newEntry.sshKeyFile', 'newEntry.knownHostsFile']);
  });
});
