// The dashboard's cloud-init editor: what it says about the user-data before it is sent.
import { beforeAll, describe, expect, it } from 'vitest';
import { checkCloudInit, loadYamlCheck, yamlCheckLoaded } from '@/components/proxies/cloud-init-check';

describe('checkCloudInit before the YAML check has loaded', () => {
  it('says a cloud-config is not checked yet (no line to mark), and answers the other formats at once', () => {
    expect(yamlCheckLoaded()).toBe(false);
    expect(checkCloudInit('#cloud-config\npackages: [squid]\n')).toEqual({ ok: false, loading: true, message: expect.stringMatching(/has not loaded yet/) });
    expect(checkCloudInit('#!/bin/sh\necho hi\n')).toEqual({ ok: true, format: 'script' });
    expect(checkCloudInit('packages: []\n')).toMatchObject({ ok: false, line: 1 });
  });
});

describe('checkCloudInit', () => {
  beforeAll(() => loadYamlCheck());

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
    expect(result).toMatchObject({ ok: false, line: 4, message: expect.stringMatching(/^YAML error on line 4, column \d+: /) });
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
