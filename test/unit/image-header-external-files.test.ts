// A base image's header is read for files outside it (issue: a hostile qcow2 naming a host file as
// its backing store made QEMU open it and libvirt re-own it). The images are made by qemu-img
// itself, so the parser is checked against the real layouts (v2 and v3, backing file, external
// data file), not against bytes this test invents.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { captureHead, describeExternalFiles, externalFiles, headerBytes } from '@/server/providers/kvm2/image-header';
import { requireTool } from '../support/system-tool';

const dir = mkdtempSync(join(tmpdir(), 'image-header-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** qemu-img create ARGS into a fresh file; the file's first headerBytes. */
function qemuImg(name: string, args: string[]): Buffer {
  const path = join(dir, name);
  execFileSync(requireTool('qemu-img', 'qemu-utils'), ['create', '-q', ...args.map((arg) => arg.replace('{}', path))]);
  return readFileSync(path).subarray(0, headerBytes);
}

const hostFile = join(dir, 'host-secret');
writeFileSync(hostFile, 'not for guests');

describe('externalFiles', () => {
  it.each([
    ['a plain qcow2 (v3)', ['-f', 'qcow2', '{}', '1M']],
    ['a plain qcow2 (v2, compat 0.10)', ['-f', 'qcow2', '-o', 'compat=0.10', '{}', '1M']],
    ['a raw image', ['-f', 'raw', '{}', '1M']],
  ])('%s names no file', (what, args) => {
    expect(externalFiles(qemuImg(what.replace(/\W/g, ''), args))).toEqual([]);
  });

  it.each([
    ['v3', []],
    ['v2', ['-o', 'compat=0.10']],
  ])('a qcow2 (%s) with a raw backing file names it', (version, options) => {
    const header = qemuImg(`backing-${version}`, ['-f', 'qcow2', ...options, '-F', 'raw', '-b', hostFile, '{}', '1M']);
    expect(externalFiles(header)).toEqual([{ kind: 'backing file', name: hostFile }]);
  });

  it('a qcow2 with an external data file names it', () => {
    const dataFile = join(dir, 'data-file');
    const header = qemuImg('data', ['-f', 'qcow2', '-o', `data_file=${dataFile}`, '{}', '1M']);
    expect(externalFiles(header)).toEqual([{ kind: 'external data file', name: dataFile }]);
  });

  it('a qcow2 header cut too short to be read is not taken as safe', () => {
    const header = qemuImg('short', ['-f', 'qcow2', '{}', '1M']).subarray(0, 80);
    expect(externalFiles(header)).toEqual([{ kind: 'external data file' }]);
    expect(externalFiles(header.subarray(0, 40))).toEqual([{ kind: 'backing file' }]);
  });

  it('a backing file name beyond the bytes read is still refused, without a name', () => {
    const header = Buffer.alloc(104);
    header.writeUInt32BE(0x514649fb, 0);
    header.writeUInt32BE(3, 4);
    header.writeBigUInt64BE(10_000_000n, 8);
    header.writeUInt32BE(12, 16);
    header.writeUInt32BE(104, 100);
    expect(externalFiles(header)).toEqual([{ kind: 'backing file', name: undefined }]);
    expect(describeExternalFiles(externalFiles(header))).toBe('backing file (name not readable)');
  });
});

describe('captureHead', () => {
  it('keeps the first bytes of a stream across chunks and passes every chunk on', async () => {
    async function* chunks(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('abc');
      yield Buffer.from('defg');
      yield Buffer.from('hij');
    }
    const captured = captureHead(chunks(), 5);
    const passed: string[] = [];
    for await (const chunk of captured.body) passed.push(Buffer.from(chunk).toString());
    expect(passed).toEqual(['abc', 'defg', 'hij']);
    expect(captured.head().toString()).toBe('abcde');
  });
});
