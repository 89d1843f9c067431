// The files the Add host wizard reads and appends to. Step 1 appends to the entry's known_hosts
// file, so it must not be the providers config, a private key or its .pub (by name, symlink or
// hard link), an existing file that is not known_hosts, or a symbolic link (opened without
// following one); key and known_hosts files others may write get a warning in the step's answer;
// and no host field may carry a newline or another control character.
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addHostSchema, candidateSchema, editHostSchema, trustHostKeySchema } from '@/lib/api/host-setup';
import { HostSetupInputError, HostSetupRefusedError } from '@/server/onboarding/errors';
import { HostSetup } from '@/server/onboarding/host-setup';
import { builtInOnboarding } from '@/server/onboarding/onboarding-types';
import { parseProvidersConfig } from '@/server/providers/config';
import { createLogger } from '@/server/telemetry/logger';
import { tempDir } from '@/test/fakes/control-plane';

const logger = createLogger({ level: 'silent' });
let dir: ReturnType<typeof tempDir>;
let configPath: string;
let keys: string;
let setup: HostSetup;
const fingerprint = `SHA256:${'A'.repeat(43)}`;
const knownLine =
  '|1|c2FsdHNhbHRzYWx0c2FsdHNhbHQ=|aG1hY2htYWNobWFjaG1hY2htYWM= ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n';

function writeConfig(knownHostsFile: string) {
  writeFileSync(
    configPath,
    `- name: home\n  type: kvm2\n  kvm2:\n    sshKeyFile: ${keys}/id_ed25519\n    knownHostsFile: ${knownHostsFile}\n    machineTypes:\n      small: {vcpus: 1, memoryMiB: 512}\n    hosts:\n      - name: a\n        address: a.lan\n        user: virt\n        bridge: br0\n`,
  );
}

beforeEach(() => {
  dir = tempDir('host-setup-files-');
  configPath = join(dir.path, 'providers.yaml');
  keys = join(dir.path, 'keys');
  mkdirSync(keys);
  writeFileSync(join(keys, 'id_ed25519'), 'PRIVATE KEY\n', { mode: 0o600 });
  writeFileSync(join(keys, 'id_ed25519.pub'), 'ssh-ed25519 AAAA server\n');
  writeConfig(join(keys, 'known_hosts'));
  setup = new HostSetup({ types: builtInOnboarding(), configPath, entries: () => parseProvidersConfig(readFileSync(configPath, 'utf8')), logger });
});
afterEach(() => dir.remove());

const newEntry = (knownHostsFile: string) => ({ provider: 'other', newEntry: { sshKeyFile: join(keys, 'other_key'), knownHostsFile }, address: '127.0.0.1:1' });
const refusalOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (err: unknown) => err,
  );

describe("a new entry's known_hosts file", () => {
  it.each([
    ['the providers config', () => configPath, /is the providers config/],
    ["another entry's private key", () => join(keys, 'id_ed25519'), /is an SSH private key \(sshKeyFile\)/],
    ["another entry's public key", () => join(keys, 'id_ed25519.pub'), /is the public half of an SSH key \(sshKeyFile\)/],
    ["the new entry's own key", () => join(keys, 'other_key'), /is an SSH private key \(sshKeyFile\)/],
    ["the new entry's own .pub", () => join(keys, 'other_key.pub'), /is the public half of an SSH key \(sshKeyFile\)/],
    ['a hard link to the providers config', () => (linkSync(configPath, join(keys, 'hard')), join(keys, 'hard')), /is the providers config/],
    [
      'a symbolic link',
      () => (writeFileSync(join(keys, 'real_known_hosts'), knownLine), symlinkSync(join(keys, 'real_known_hosts'), join(keys, 'kh')), join(keys, 'kh')),
      /is a symbolic link/,
    ],
    [
      'a file that is not known_hosts',
      () => (writeFileSync(join(keys, 'notes'), '# mine\nnot a known_hosts line\n'), join(keys, 'notes')),
      /line 2 is not a known_hosts line/,
    ],
  ])('is refused when it is %s, naming the field, before anything is written', async (_case, path, message) => {
    const file = path();
    const contents = () => (existsSync(file) ? readFileSync(file, 'utf8') : 'no file');
    const before = contents();
    for (const step of [() => setup.hostKey(newEntry(file)), () => setup.trustHostKey({ ...newEntry(file), fingerprint })]) {
      const refusal = (await refusalOf(step())) as HostSetupInputError;
      expect(refusal).toBeInstanceOf(HostSetupInputError);
      expect(refusal.fields).toEqual([{ path: 'newEntry.knownHostsFile', message: expect.stringMatching(message) }]);
      expect(JSON.stringify(refusal.fields)).not.toContain(dir.path);
    }
    expect(contents()).toBe(before);
  });

  it("is refused for an existing entry whose config names the providers config, naming the entry's field", async () => {
    writeConfig(configPath);
    const before = readFileSync(configPath, 'utf8');
    const refusal = await refusalOf(setup.trustHostKey({ provider: 'home', address: '127.0.0.1:1', fingerprint }));
    expect(refusal).toBeInstanceOf(HostSetupRefusedError);
    expect((refusal as Error).message).toMatch(/^provider "home": kvm2\.knownHostsFile is the providers config/);
    expect(readFileSync(configPath, 'utf8')).toBe(before);
  });

  it('a missing file or a real known_hosts passes (the step goes on to the host)', async () => {
    writeFileSync(join(keys, 'known_hosts'), `# comment\n\n${knownLine}`);
    for (const file of [join(keys, 'known_hosts'), join(keys, 'new_known_hosts')]) {
      const answer = await setup.hostKey(newEntry(file));
      expect(answer).toMatchObject({ ok: false, failure: { reason: 'Unreachable' } });
      expect(answer.warnings).toBeUndefined();
    }
  });
});

describe('files others may write', () => {
  it('get a warning in the step answer naming the field, not the path', async () => {
    writeFileSync(join(keys, 'known_hosts'), knownLine);
    chmodSync(join(keys, 'known_hosts'), 0o664);
    chmodSync(join(keys, 'id_ed25519'), 0o620);
    const answer = await setup.hostKey({ provider: 'home', address: '127.0.0.1:1' });
    expect(answer.warnings).toEqual([
      expect.stringMatching(/^the SSH key file \(sshKeyFile\) is writable by its group \(mode 0620\).*chmod 600/),
      expect.stringMatching(/^the known_hosts file \(knownHostsFile\) is writable by its group \(mode 0664\).*chmod 600/),
    ]);
    expect(JSON.stringify(answer)).not.toContain(dir.path);
    chmodSync(join(keys, 'known_hosts'), 0o646);
    expect((await setup.hostKey({ provider: 'home', address: '127.0.0.1:1' })).warnings?.[1]).toMatch(/writable by everyone \(mode 0646\)/);
  });
});

describe('host fields', () => {
  const candidate = { provider: 'home', address: 'a.lan', user: 'virt', name: 'c', socket: '/run/libvirt/libvirt-sock', pool: 'default', bridge: 'br0' };
  it.each(['provider', 'address', 'user', 'name', 'socket', 'pool', 'bridge'])('refuse a newline or another control character in %s, naming it', (field) => {
    for (const bad of ['x\nProxyCommand evil', 'x\ry', 'x\u0000y', 'x\u001b[31my', 'x\u007fy']) {
      const value = field === 'socket' ? `/run/${bad}` : bad;
      const result = candidateSchema.safeParse({ ...candidate, [field]: value });
      expect(result.success, `${field}=${JSON.stringify(value)}`).toBe(false);
      expect(result.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
        [field, 'must not contain a newline or other control character'],
      ]);
    }
  });

  it.each([
    [
      'addHostSchema',
      addHostSchema,
      { address: 'a.lan', user: 'virt', bridge: 'br0', name: 'c', newEntry: { sshKeyFile: '/k/id', knownHostsFile: '/k/kh' } },
      ['address', 'user', 'bridge', 'name', 'pool', 'socket', 'newEntry.sshKeyFile', 'newEntry.knownHostsFile'],
    ],
    ['editHostSchema', editHostSchema, {}, ['address', 'user', 'bridge', 'pool', 'socket']],
    ['trustHostKeySchema', trustHostKeySchema, { provider: 'home', address: 'a.lan', fingerprint }, ['provider', 'address']],
  ] as const)('%s refuses them in every text field', (_name, schema, valid, fields) => {
    expect(schema.safeParse(valid).success).toBe(true);
    for (const field of fields) {
      const [outer, inner] = field.split('.') as [string, string | undefined];
      const bad = field.endsWith('File') || field === 'socket' ? '/k/a\nb' : 'a\nb';
      const input = inner ? { ...valid, [outer]: { ...(valid as Record<string, object>)[outer], [inner]: bad } } : { ...valid, [outer]: bad };
      const result = schema.safeParse(input);
      expect(
        result.error?.issues.map((issue) => [issue.path.join('.'), issue.message]),
        field,
      ).toEqual([[field, 'must not contain a newline or other control character']]);
    }
  });
});
