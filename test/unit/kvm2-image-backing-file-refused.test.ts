// A base image whose qcow2 header names another file (a backing file or an external data file) is
// refused permanently, naming the file: never marked cached when downloaded, and never given an
// overlay when it was cached before the check existed. Its sha256 being configured changes nothing.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorClassOf } from '@/server/providers/errors';
import { requireTool } from '../support/system-tool';
import { failureOf, makeHarness, TestMirror } from './kvm2-fixture';

const dir = mkdtempSync(join(tmpdir(), 'hostile-image-'));
const hostFile = '/var/lib/secret-host-disk.img';
const hostileImage = (() => {
  const path = join(dir, 'hostile.qcow2');
  execFileSync(requireTool('qemu-img', 'qemu-utils'), ['create', '-q', '-f', 'qcow2', '-u', '-F', 'raw', '-b', hostFile, path, '1M']);
  return readFileSync(path);
})();
const hostileDigest = createHash('sha256').update(hostileImage).digest('hex');

const mirror = new TestMirror();
beforeAll(async () => {
  mirror.routes.set('/hostile.qcow2', (req, res) =>
    res.writeHead(200, { 'content-length': hostileImage.length }).end(req.method === 'HEAD' ? undefined : hostileImage),
  );
  await mirror.start();
});
afterAll(async () => {
  await mirror.stop();
  rmSync(dir, { recursive: true, force: true });
});

const domain = 'proxy-hostile';
const created = (harness: ReturnType<typeof makeHarness>) =>
  harness.hypervisor.calls.filter((call) => call.method === 'storageVolCreateXml' || call.method === 'domainDefineXmlFlags').map((call) => call.subject);

describe('a base image naming a host file', () => {
  it('downloaded: refused permanently naming the file, and neither base nor marker is left', async () => {
    const harness = makeHarness({ mirror, imagePath: '/hostile.qcow2', sha256: hostileDigest });
    const error = await failureOf(harness.provider.create(harness.request(domain)));
    expect(errorClassOf(error)).toBe('permanent');
    expect(error?.message).toContain(`backing file "${hostFile}"`);
    expect(error?.message).toContain(harness.imageVolumes.base);
    expect(harness.hypervisor.volume(harness.imageVolumes.base)).toBeUndefined();
    expect(harness.hypervisor.volume(harness.imageVolumes.marker)).toBeUndefined();
    expect(created(harness)).toEqual([harness.imageVolumes.base]);
    expect(harness.hypervisor.domains.has(domain)).toBe(false);
  });

  it('cached by an older version: refused before any overlay is made on it', async () => {
    const harness = makeHarness({ mirror, imagePath: '/hostile.qcow2' });
    harness.hypervisor.addVolume({ name: harness.imageVolumes.base, format: 'qcow2', content: hostileImage });
    harness.hypervisor.addVolume({ name: harness.imageVolumes.marker, content: hostileDigest });
    const error = await failureOf(harness.provider.create(harness.request(domain)));
    expect(errorClassOf(error)).toBe('permanent');
    expect(error?.message).toContain(`backing file "${hostFile}"`);
    expect(error?.message).toContain('evict');
    expect(created(harness)).toEqual([]);
    expect(harness.hypervisor.domains.has(domain)).toBe(false);
  });
});
