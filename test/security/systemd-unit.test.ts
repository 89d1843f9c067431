// The systemd unit in deploy/ is what the README tells admins to install: systemd itself must read
// every line of it (`systemd-analyze verify` prints nothing), and it keeps the sandbox the README
// promises. systemd is not started: only its analysis tool runs, installed from Debian's archive
// when this machine lacks it.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoDir } from '@/test/e2e/harness/app-server';

const unitPath = join(repoDir, 'deploy/kvm2-proxies.service');

function hasSystemdAnalyze(): boolean {
  return spawnSync('systemd-analyze', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Debian's systemd package, for its systemd-analyze; a policy-rc.d keeps package scripts from starting anything. */
function installSystemdAnalyze(): void {
  const policy = '/usr/sbin/policy-rc.d';
  const hadPolicy = spawnSync('test', ['-e', policy]).status === 0;
  if (!hadPolicy) writeFileSync(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  try {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update'], { env, stdio: 'inherit' });
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'systemd'], { env, stdio: 'inherit' });
  } finally {
    if (!hadPolicy) rmSync(policy, { force: true });
  }
}

/** What `systemd-analyze verify` says about a unit file: nothing when systemd reads every line. */
function verify(path: string): { status: number | null; output: string } {
  const result = spawnSync('systemd-analyze', ['verify', path], { encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}

/** Every `Key=value` line of the unit, values of repeated keys in order. */
function directives(text: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (match) found.set(match[1]!, [...(found.get(match[1]!) ?? []), match[2]!]);
  }
  return found;
}

beforeAll(() => {
  if (!hasSystemdAnalyze()) installSystemdAnalyze();
}, 300_000);

describe('the systemd unit in deploy/', () => {
  it('is read by systemd without a single complaint', () => {
    expect(verify(unitPath)).toEqual({ status: 0, output: '' });
  });

  it('would be caught with a mistyped directive (the check above can fail)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kvm2-unit-'));
    try {
      const broken = join(dir, 'kvm2-proxies.service');
      writeFileSync(broken, readFileSync(unitPath, 'utf8').replace('ProtectSystem=strict', 'ProtectSystem=strictest'));
      expect(verify(broken).output).toContain('Failed to parse protect system value');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs as its own user in a read-only system with only the data directory writable', () => {
    const unit = directives(readFileSync(unitPath, 'utf8'));
    expect(unit.get('User')).toEqual(['kvm2-proxies']);
    expect(unit.get('ProtectSystem')).toEqual(['strict']);
    expect(unit.get('NoNewPrivileges')).toEqual(['yes']);
    expect(unit.get('UMask')).toEqual(['0077']);
    expect(unit.get('CapabilityBoundingSet')).toEqual(['']);
    const dataDir = /DATA_DIR=(\S+)/.exec((unit.get('Environment') ?? []).join(' '))?.[1];
    expect(dataDir).toBe('/var/lib/kvm2-proxies');
    expect(unit.get('ReadWritePaths')).toEqual([dataDir]);
    expect(unit.get('StateDirectoryMode')).toEqual(['0700']);
  });

  it('rates as a well-sandboxed service in systemd’s own exposure score', () => {
    const output = execFileSync('systemd-analyze', ['security', '--offline=true', unitPath], { encoding: 'utf8' });
    const score = Number(/Overall exposure level for kvm2-proxies\.service: ([\d.]+)/.exec(output)?.[1]);
    expect(score).toBeLessThanOrEqual(2);
  });
});
