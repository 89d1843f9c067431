import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MissingToolError, requireTool } from '../support/system-tool';

const dir = mkdtempSync(join(tmpdir(), 'system-tool-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('requireTool', () => {
  it('finds an executable on PATH', () => {
    writeFileSync(join(dir, 'isoinfo'), '#!/bin/sh\n');
    chmodSync(join(dir, 'isoinfo'), 0o755);
    expect(requireTool('isoinfo', 'genisoimage', `/nonexistent:${dir}`)).toBe(join(dir, 'isoinfo'));
  });

  it('fails naming the Debian package when the tool is missing', () => {
    const call = () => requireTool('blkid', 'util-linux', '/nonexistent');
    expect(call).toThrow(MissingToolError);
    expect(call).toThrow('blkid is not on PATH: install the Debian package util-linux');
  });

  it('does not take a file that is not executable', () => {
    writeFileSync(join(dir, 'plain'), 'data');
    chmodSync(join(dir, 'plain'), 0o644);
    expect(() => requireTool('plain', 'some-package', dir)).toThrow('install the Debian package some-package');
  });
});
