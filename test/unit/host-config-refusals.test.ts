// What the host saves and the wizard refuse, with nothing written: a host Proxies still use (the
// refusal names them), a save that fails validation (the field named, the file's path not), key
// files for an entry that exists or missing for one that does not, and a new entry's files outside
// the directories the server's key files live in.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HostInUseError, HostSetupInputError } from '@/server/onboarding/errors';
import { hostConfigFileEachTest, proxyRecordOn } from '@/test/support/host-config';

const file = hostConfigFileEachTest(
  'host-config-',
  (dir) =>
    `- name: home\n  type: kvm2\n  kvm2:\n    sshKeyFile: ${dir}/keys/id_ed25519\n    knownHostsFile: ${dir}/keys/known_hosts\n    machineTypes:\n      small: {vcpus: 1, memoryMiB: 512}\n    hosts:\n      - name: a\n        address: a.lan\n        user: virt\n        bridge: br0\n      - name: b\n        address: b.lan\n        user: virt\n        bridge: br0\n`,
);

describe('host saves', () => {
  it('refuses to remove a host that Proxies use, naming them, and removes it once they are gone', async () => {
    file.proxies = [proxyRecordOn('p1', 'a'), proxyRecordOn('p2', 'b'), proxyRecordOn('p3', 'a')];
    const refusal = file.hosts.remove('home', 'a');
    await expect(refusal).rejects.toThrow(HostInUseError);
    await expect(refusal).rejects.toThrow('host "a" still has Proxies: p1, p3');
    expect(readFileSync(file.path, 'utf8')).toBe(file.text);
    file.proxies = [proxyRecordOn('p2', 'b')];
    await expect(file.hosts.remove('home', 'a')).resolves.toEqual({ provider: 'home', hosts: ['b'], backupKept: true });
    expect(file.reloads).toBe(1);
  });

  it('names the problem of a save that fails validation, without the file path, and writes nothing', async () => {
    const save = file.hosts.add('home', { name: 'b', address: 'c.lan', user: 'virt', bridge: 'br0' });
    await expect(save).rejects.toThrow(HostSetupInputError);
    const err = (await save.catch((caught: unknown) => caught)) as HostSetupInputError;
    expect(err.fields).toEqual([{ path: '', message: 'provider "home": kvm2.hosts[2]: name "b" is already used by kvm2.hosts[1]' }]);
    expect(err.message).not.toContain(file.dir);
    await expect(file.hosts.remove('home', 'nope')).rejects.toThrow('there is no host named "nope"');
    await expect(file.hosts.update('elsewhere', 'a', { user: 'x' })).rejects.toThrow('no provider entry named "elsewhere"');
    expect(readFileSync(file.path, 'utf8')).toBe(file.text);
    expect(file.reloads).toBe(0);
  });
});

describe('key files of the candidate', () => {
  it('wants them for a new entry only, and only where the key files already live', () => {
    const files = { sshKeyFile: join(file.dir, 'new_key'), knownHostsFile: join(file.dir, 'keys', 'known_hosts2') };
    expect(() => file.setup.refuseEntry({ provider: 'home', newEntry: files })).toThrow('provider "home" exists already; leave newEntry out');
    expect(() => file.setup.refuseEntry({ provider: 'other' })).toThrow('there is no provider "other": give the key files of the new entry');
    expect(() => file.setup.refuseEntry({ provider: 'other', newEntry: files })).not.toThrow();
    let refusal: unknown;
    try {
      file.setup.refuseEntry({ provider: 'other', newEntry: { sshKeyFile: '/etc/shadow', knownHostsFile: `${file.dir}/keys/../../../root/.bashrc` } });
    } catch (err) {
      refusal = err;
    }
    expect((refusal as HostSetupInputError).fields.map((field) => field.path)).toEqual(['newEntry.sshKeyFile', 'newEntry.knownHostsFile']);
  });
});
