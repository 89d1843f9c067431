// The dashboard's cloud-init editor: what it says about the user-data before it is sent.
import { describe, expect, it } from 'vitest';
import { checkCloudInit } from '@/components/proxies/cloud-init-check';

describe('checkCloudInit', () => {
  it.each([
    ['empty (no user-data)', ''],
    ['a cloud-config', '#cloud-config\npackages:\n  - squid\n'],
    ['a cloud-config with CRLF line endings', '#cloud-config\r\nruncmd:\r\n  - [echo, hi]\r\n'],
    ['a shell script', '#!/bin/sh\necho hi: [\n'],
    ['an include file', '#include\nhttps://example.com/a\n'],
    ['a boothook', '#cloud-boothook\n#!/bin/sh\necho\n'],
    ['a MIME multi-part', 'Content-Type: multipart/mixed; boundary="x"\nMIME-Version: 1.0\n\n--x\n'],
    ['a jinja template', '## template: jinja\n#cloud-config\nhostname: {{ v1.local_hostname }}\n'],
  ])('passes %s', (_name, text) => {
    expect(checkCloudInit(text)).toEqual({ ok: true, format: expect.any(String) });
  });

  it('names the line and column of a YAML syntax error in a cloud-config', () => {
    const result = checkCloudInit('#cloud-config\npackages:\n  - squid\n runcmd: [\n');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.line).toBe(4);
    expect(result.message).toMatch(/^YAML error on line 4, column \d+: /);
  });

  it('refuses a cloud-config whose top level is not a mapping', () => {
    const result = checkCloudInit('#cloud-config\n- a\n- b\n');
    expect(result).toMatchObject({ ok: false, line: 2, message: expect.stringMatching(/must be a mapping/) });
  });

  it('asks for the #cloud-config header when YAML comes without it', () => {
    const result = checkCloudInit('packages:\n  - squid\n');
    expect(result).toMatchObject({ ok: false, line: 1, message: expect.stringMatching(/#cloud-config/) });
  });

  it('asks for the header when the first line is a misspelt one', () => {
    expect(checkCloudInit('#cloud-confg\npackages: []\n')).toMatchObject({ ok: false, line: 1, message: expect.stringMatching(/#cloud-config/) });
  });
});
