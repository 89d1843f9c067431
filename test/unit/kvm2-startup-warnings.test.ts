import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { validateProvidersConfig, type Kvm2Entry } from '@/server/providers/config';
import { startupWarnings, withDefaults } from '@/server/providers/kvm2/kvm2';
import { nextTurn } from '@/test/support/wait';
import { captureLogs } from '@/test/support/log-capture';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function settingsWith(block: Record<string, unknown>) {
  const [entry] = validateProvidersConfig([
    {
      name: 'kvm2-home',
      type: 'kvm2',
      kvm2: {
        machineTypes: { small: { vcpus: 1, memoryMiB: 512 } },
        hosts: [{ name: 'h', address: 'h:22', user: 'u', bridge: 'br0' }],
        ...block,
      },
    },
  ]);
  return withDefaults(entry as Kvm2Entry);
}

function credentialsDir() {
  const dir = mkdtempSync(join(tmpdir(), 'kvm2-creds-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'id_ed25519'), 'not inspected at startup');
  chmodSync(join(dir, 'id_ed25519'), 0o600);
  writeFileSync(join(dir, 'known_hosts'), 'not inspected at startup');
  return dir;
}

describe('kvm2 startup checks', () => {
  it('stays quiet when both files exist', async () => {
    const dir = credentialsDir();
    const { lines, logger: log } = captureLogs();
    const warnings = startupWarnings(settingsWith({ sshKeyFile: join(dir, 'id_ed25519'), knownHostsFile: join(dir, 'known_hosts') }), { log });
    await nextTurn();
    expect(warnings).toEqual([]);
    expect(lines).toEqual([]);
  });

  it('logs a WARNING line per missing file instead of failing', async () => {
    const dir = credentialsDir();
    const { lines, logger: log } = captureLogs();
    const settings = settingsWith({ sshKeyFile: join(dir, 'gone'), knownHostsFile: join(dir, 'also-gone') });
    const warnings = startupWarnings(settings, { log });
    await nextTurn();
    expect(warnings).toHaveLength(2);
    expect(lines.map((line) => line.msg)).toEqual([
      'WARNING: kvm2 sshKeyFile does not exist; calls to this provider fail transiently until it does',
      'WARNING: kvm2 knownHostsFile does not exist; calls to this provider fail transiently until it does',
    ]);
    expect(lines[0]).toMatchObject({ level: 40, provider: 'kvm2-home', path: join(dir, 'gone') });
    expect(lines[1]).toMatchObject({ level: 40, provider: 'kvm2-home', path: join(dir, 'also-gone') });
  });

  it.each([
    { mode: 0o644, warning: /^WARNING: kvm2 sshKeyFile is readable by group or others; make it 0600/ },
    { mode: 0o640, warning: /^WARNING: kvm2 sshKeyFile is readable by group or others/ },
    { mode: 0o666, warning: /^WARNING: kvm2 sshKeyFile is writable by every user; calls to this provider are refused/ },
  ])('logs a WARNING line, as OpenSSH would, for a key file with mode $mode', async ({ mode, warning }) => {
    const dir = credentialsDir();
    chmodSync(join(dir, 'id_ed25519'), mode);
    const { lines, logger: log } = captureLogs();
    startupWarnings(settingsWith({ sshKeyFile: join(dir, 'id_ed25519'), knownHostsFile: join(dir, 'known_hosts') }), { log });
    await nextTurn();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, path: join(dir, 'id_ed25519'), mode: `0${mode.toString(8)}` });
    expect(lines[0]?.msg).toMatch(warning);
  });

  it('logs a WARNING line when host keys are not verified', async () => {
    const dir = credentialsDir();
    const { lines, logger: log } = captureLogs();
    startupWarnings(settingsWith({ sshKeyFile: join(dir, 'id_ed25519'), insecureIgnoreHostKey: true }), { log });
    await nextTurn();
    expect(lines).toHaveLength(1);
    expect(lines[0]?.msg).toMatch(/^WARNING: kvm2 insecureIgnoreHostKey is on; host keys are not verified/);
  });

  it('never reads the files, only looks at their modes', () => {
    const checked: string[] = [];
    const { logger: log } = captureLogs();
    startupWarnings(settingsWith({ sshKeyFile: '/k/id', knownHostsFile: '/k/kh' }), {
      log,
      fileMode: (path) => {
        checked.push(path);
        return 0o100600;
      },
    });
    expect(checked).toEqual(['/k/id', '/k/kh']);
  });
});
