import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import PostalMime from 'postal-mime';
import { describe, expect, it } from 'vitest';
import { buildVendorData, guestAgentScript } from '@/server/providers/kvm2/seed';
import { requireTool } from '../support/system-tool';

const adminDocument = '#cloud-config\nntp:\n  enabled: true\nwrite_files:\n  - path: /etc/motd\n    content: "a & b < c"\n';

describe('vendor-data', () => {
  it('is the agent script alone when no vendorData is configured', () => {
    expect(buildVendorData({ installGuestAgent: true })).toBe(guestAgentScript);
    expect(buildVendorData({ installGuestAgent: true, vendorData: '' })).toBe(guestAgentScript);
  });

  it('is the admin document alone, or empty, with the agent off', () => {
    expect(buildVendorData({ installGuestAgent: false, vendorData: adminDocument })).toBe(adminDocument);
    expect(buildVendorData({ installGuestAgent: false })).toBe('');
  });

  it('starts a multipart with the MIME-Version header, so cloud-init detects it', () => {
    const multipart = buildVendorData({ installGuestAgent: true, vendorData: adminDocument });
    expect(multipart.startsWith('MIME-Version: 1.0\n')).toBe(true);
  });

  it('carries both parts with their types through a real MIME parser', async () => {
    const multipart = buildVendorData({ installGuestAgent: true, vendorData: adminDocument });
    const email = await PostalMime.parse(multipart, { attachmentEncoding: 'utf8' });
    const parts = email.attachments.map((part) => ({ mimeType: part.mimeType, content: part.content }));
    // postal-mime keeps the line break before each delimiter in the part body; RFC 2046 5.1.1
    // gives it to the delimiter, and Python's email (next test, byte-exact) drops it.
    expect(parts).toEqual([
      { mimeType: 'text/plain', content: `${adminDocument}\n` },
      { mimeType: 'text/x-shellscript', content: `${guestAgentScript}\n` },
    ]);
    expect(email.headers[0]).toMatchObject({ key: 'mime-version', value: '1.0' });
  });

  it('reads the same way with Python email, which cloud-init uses', () => {
    const multipart = buildVendorData({ installGuestAgent: true, vendorData: adminDocument });
    const script = [
      'import email, json, sys',
      'msg = email.message_from_string(sys.stdin.read())',
      'parts = [{"type": p.get_content_type(), "body": p.get_payload(decode=True).decode()} for p in msg.walk() if not p.is_multipart()]',
      'print(json.dumps({"multipart": msg.is_multipart(), "parts": parts}))',
    ].join('\n');
    const parsed = JSON.parse(execFileSync(requireTool('python3', 'python3-minimal'), ['-c', script], { input: multipart, encoding: 'utf8' })) as unknown;
    expect(parsed).toEqual({
      multipart: true,
      parts: [
        { type: 'text/plain', body: adminDocument },
        { type: 'text/x-shellscript', body: guestAgentScript },
      ],
    });
  });

  it('stays parseable when the document contains delimiter-like lines', async () => {
    // A document that contains what the boundary would have been without the check.
    const first = buildVendorData({ installGuestAgent: true, vendorData: 'x\n' });
    const boundary = /boundary="([^"]+)"/.exec(first)?.[1] ?? '';
    const hostile = `--${boundary}\n--${boundary}--\n`;
    const multipart = buildVendorData({ installGuestAgent: true, vendorData: hostile });
    const email = await PostalMime.parse(multipart, { attachmentEncoding: 'utf8' });
    expect(email.attachments.map((part) => part.content)).toEqual([`${hostile}\n`, `${guestAgentScript}\n`]);
    expect(multipart).not.toContain(`boundary="${boundary}"`);
  });
});

describe('guest-agent script', () => {
  it('is a shell script that parses', () => {
    expect(guestAgentScript.startsWith('#!/bin/sh\n')).toBe(true);
    expect(() => execFileSync('sh', ['-n'], { input: guestAgentScript })).not.toThrow();
  });

  it('handles every package manager and init system the spec names, and logs to cloud-init-output.log', () => {
    for (const check of ['have apt-get', 'have dnf', 'have yum', 'have zypper', 'have apk', 'have systemctl', 'have rc-update']) {
      expect(guestAgentScript).toContain(check);
    }
    expect(guestAgentScript).toContain('rc-service qemu-guest-agent start');
    expect(guestAgentScript).toContain('exec >>/var/log/cloud-init-output.log 2>&1');
  });
});

// Runs the script against stub commands: PATH holds only the stubs, which record their calls, and
// the absolute paths the script probes are moved into the sandbox.
function runScript(stubs: string[], agentPreinstalled = false) {
  const sandbox = mkdtempSync(join(tmpdir(), 'agent-script-'));
  try {
    const bin = join(sandbox, 'bin');
    execFileSync('mkdir', ['-p', bin]);
    const calls = join(sandbox, 'calls');
    const installs = ['apt-get', 'dnf', 'yum', 'zypper', 'apk'];
    for (const stub of stubs) {
      // A package manager "installs" the agent by creating qemu-ga.
      const effect = installs.includes(stub)
        ? `case "$*" in *install*|*add*) printf '#!/bin/sh\\n' > ${bin}/qemu-ga; /bin/chmod +x ${bin}/qemu-ga;; esac\n`
        : '';
      writeFileSync(join(bin, stub), `#!/bin/sh\necho "${stub} $*" >> ${calls}\n${effect}`);
      chmodSync(join(bin, stub), 0o755);
    }
    if (agentPreinstalled) {
      writeFileSync(join(bin, 'qemu-ga'), '#!/bin/sh\n');
      chmodSync(join(bin, 'qemu-ga'), 0o755);
    }
    const log = join(sandbox, 'cloud-init-output.log');
    const script = guestAgentScript
      .replaceAll('/var/log/cloud-init-output.log', log)
      .replace(/\/usr\/(s?bin|libexec)\/qemu-ga/g, join(sandbox, 'absent', 'qemu-ga'));
    const run = () => execFileSync('/bin/sh', ['-c', script], { env: { ...process.env, PATH: bin } });
    run();
    const first = existsSync(calls) ? readFileSync(calls, 'utf8').trim().split('\n') : [];
    run();
    const all = existsSync(calls) ? readFileSync(calls, 'utf8').trim().split('\n') : [];
    return { first, second: all.slice(first.length), log: readFileSync(log, 'utf8') };
  } finally {
    rmSync(sandbox, { recursive: true, force: true });
  }
}

describe('guest-agent script behaviour', () => {
  it.each([
    { manager: 'apt-get', install: ['apt-get update -q', 'apt-get install -y -q qemu-guest-agent'] },
    { manager: 'dnf', install: ['dnf install -y qemu-guest-agent'] },
    { manager: 'yum', install: ['yum install -y qemu-guest-agent'] },
    { manager: 'zypper', install: ['zypper --non-interactive install qemu-guest-agent'] },
    { manager: 'apk', install: ['apk add --no-cache qemu-guest-agent'] },
  ])('installs with $manager, starts with systemd, and does nothing more the second time but start', ({ manager, install }) => {
    const { first, second, log } = runScript([manager, 'systemctl']);
    expect(first).toEqual([...install, 'systemctl enable qemu-guest-agent', 'systemctl start qemu-guest-agent']);
    expect(second).toEqual(['systemctl enable qemu-guest-agent', 'systemctl start qemu-guest-agent']);
    expect(log).toContain('kvm2: ensuring qemu-guest-agent is installed and running');
  });

  it('prefers apt-get when several managers exist', () => {
    expect(runScript(['dnf', 'apt-get', 'systemctl']).first[0]).toBe('apt-get update -q');
  });

  it('starts the agent with OpenRC where there is no systemd', () => {
    const { first } = runScript(['apk', 'rc-update', 'rc-service']);
    expect(first).toEqual(['apk add --no-cache qemu-guest-agent', 'rc-update add qemu-guest-agent default', 'rc-service qemu-guest-agent start']);
  });

  it('installs nothing when the agent is already there', () => {
    expect(runScript(['apt-get', 'systemctl'], true).first).toEqual(['systemctl enable qemu-guest-agent', 'systemctl start qemu-guest-agent']);
  });

  it('gives up quietly, with a log line, when no package manager exists', () => {
    const { first, log } = runScript(['systemctl']);
    expect(first).toEqual([]);
    expect(log).toContain('no apt-get, dnf, yum, zypper or apk found');
  });
});
