// Saving the providers config from the dashboard: only the edited lines change (comments, order,
// quoting and flow maps elsewhere stay byte for byte), a save that fails validation writes nothing,
// the previous file is kept as a backup, and concurrent saves each keep their edit.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseProvidersConfig, ProvidersConfigError } from '@/server/providers/config';
import { ProvidersConfigFile } from '@/server/providers/config-file';
import { addHostText, addKvm2EntryText, ConfigEditError, removeHostText, updateHostText } from '@/server/providers/config-text-edit';
import { tempDir } from '@/test/fakes/control-plane';

const sample = readFileSync(new URL('../../config/providers.sample.yaml', import.meta.url), 'utf8');
const provider = 'kvm2-home';
const hostsOf = (text: string) => parseProvidersConfig(text)[0]!.kvm2.hosts;
const lab3 = { name: 'lab3', address: '198.18.3.2:2222', user: 'kvm2lab', bridge: 'kvm2lab-br0', pool: 'default', virtType: 'qemu' };

let dir: ReturnType<typeof tempDir>;
let file: ProvidersConfigFile;
beforeEach(() => {
  dir = tempDir('config-write-');
  writeFileSync(join(dir.path, 'providers.yaml'), sample, { mode: 0o640 });
  file = new ProvidersConfigFile(join(dir.path, 'providers.yaml'));
});
afterEach(() => dir.remove());

describe('editing the config text', () => {
  it('adds a host after the last one and leaves every other byte as it was', () => {
    const edited = addHostText(sample, { provider, host: lab3 });
    const inserted =
      '      - name: lab3\n        address: 198.18.3.2:2222\n        user: kvm2lab\n        bridge: kvm2lab-br0\n        pool: default\n        virtType: qemu\n';
    const at = edited.indexOf(inserted);
    expect(at).toBeGreaterThan(0);
    expect(edited.slice(0, at) + edited.slice(at + inserted.length)).toBe(sample);
    expect(hostsOf(edited).map((host) => host.name)).toEqual(['beelink', 'nuc', 'lab3']);
  });

  it('changes only the fields an edit names, keeping inline comments', () => {
    const edited = updateHostText(sample, { provider, host: 'beelink', fields: { address: 'beelink.lan:2200', user: 'admin', bridge: 'br1', pool: 'fast' } });
    expect(edited).toContain('        address: beelink.lan:2200   # SSH endpoint, host:port\n');
    expect(edited).toContain("        bridge: br1                       # host bridge with DHCP for the VMs' NIC\n");
    expect(edited).toContain("        user: admin                       # SSH user in the host's libvirt group\n");
    expect(hostsOf(edited)[0]).toEqual({ name: 'beelink', address: 'beelink.lan:2200', user: 'admin', bridge: 'br1', pool: 'fast' });
    // Only the two lines edited and the one added differ.
    const before = sample.split('\n');
    const after = edited.split('\n');
    expect(after.length).toBe(before.length + 1);
    expect(after.filter((line) => !before.includes(line))).toEqual([
      '        address: beelink.lan:2200   # SSH endpoint, host:port',
      "        bridge: br1                       # host bridge with DHCP for the VMs' NIC",
      '        pool: fast',
    ]);
  });

  it('keeps a field an edit leaves out, removes one it sets to null, and removes a host with its own lines only', () => {
    expect(updateHostText(sample, { provider, host: 'nuc', fields: { user: 'root' } })).toBe(
      sample.replace('        user: admin\n        bridge: br0\n        pool: vms', '        user: root\n        bridge: br0\n        pool: vms'),
    );
    const withoutPool = updateHostText(sample, { provider, host: 'nuc', fields: { pool: null } });
    expect(sample.replace('        pool: vms\n', '')).toBe(withoutPool);
    const removed = removeHostText(sample, { provider, host: 'nuc' });
    expect(removed).toBe(sample.replace(/ {6}- name: nuc\n(?: {8}.*\n)*/, ''));
    expect(hostsOf(removed).map((host) => host.name)).toEqual(['beelink']);
  });

  it('appends a new kvm2 entry, also to a file without entries', () => {
    const entry = { provider: 'kvm2-lab', sshKeyFile: '/k/id', knownHostsFile: '/k/known_hosts', host: lab3 };
    const edited = addKvm2EntryText(sample, entry);
    expect(edited.startsWith(sample)).toBe(true);
    expect(parseProvidersConfig(edited).map((item) => item.name)).toEqual(['kvm2-home', 'kvm2-lab']);
    const fresh = addKvm2EntryText('# no providers yet\n[]\n', entry);
    expect(fresh.startsWith('# no providers yet\n- name: kvm2-lab\n')).toBe(true);
    expect(parseProvidersConfig(fresh)[0]!.kvm2.hosts).toEqual([lab3]);
  });

  it('names a provider entry or host that is not there', () => {
    expect(() => addHostText(sample, { provider: 'nope', host: lab3 })).toThrow(new ConfigEditError('the providers config has no provider entry named "nope"'));
    expect(() => removeHostText(sample, { provider, host: 'nope' })).toThrow(ConfigEditError);
  });
});

describe('saving the config file', () => {
  it('writes the edit atomically and keeps the previous file as a backup with its mode', async () => {
    const saved = await file.update((text) => addHostText(text, { provider, host: lab3 }));
    expect(saved.entries[0]!.kvm2.hosts.map((host) => host.name)).toEqual(['beelink', 'nuc', 'lab3']);
    expect(readFileSync(saved.backup, 'utf8')).toBe(sample);
    expect(hostsOf(readFileSync(file.path, 'utf8')).at(-1)?.name).toBe('lab3');
  });

  it('writes nothing when the edited file fails validation, and names the problem', async () => {
    const save = file.update((text) => addHostText(text, { provider, host: { ...lab3, name: 'nuc' } }));
    await expect(save).rejects.toThrow(ProvidersConfigError);
    await expect(save).rejects.toThrow('kvm2.hosts[2]: name "nuc" is already used by kvm2.hosts[1]');
    expect(readFileSync(file.path, 'utf8')).toBe(sample);
    await expect(file.update(() => '- name: x\n  type: kvm2\n  kvm2: {}\n')).rejects.toThrow(ProvidersConfigError);
    expect(readFileSync(file.path, 'utf8')).toBe(sample);
  });

  it('keeps every edit of saves made at once', async () => {
    const names = Array.from({ length: 8 }, (_, index) => `host-${index}`);
    await Promise.all(names.map((name) => file.update((text) => addHostText(text, { provider, host: { ...lab3, name } }))));
    expect(
      hostsOf(readFileSync(file.path, 'utf8'))
        .map((host) => host.name)
        .sort(),
    ).toEqual(['beelink', 'nuc', ...names].sort());
  });
});
