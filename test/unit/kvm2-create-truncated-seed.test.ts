// A seed left truncated by an attempt cut off mid-upload must never boot a VM: before the domain
// exists, every Create deletes the seed and uploads it whole again. The overlay, whose creation is
// atomic, is reused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionKilledError, DomainState } from '@/server/libvirt';
import { errorClassOf } from '@/server/providers/errors';
import { buildSeedISO } from '@/server/providers/kvm2/seed';
import { uploadPacketBytes } from '@/test/fakes/fake-libvirt';
import { fixedNow, makeHarness, TestMirror } from './kvm2-fixture';

const mirror = new TestMirror();
beforeAll(() => mirror.start());
afterAll(() => mirror.stop());

const domain = 'proxy-seed';
const seedName = `${domain}-seed.iso`;

function expectedSeed(cloudInit: string | Uint8Array): Buffer {
  return Buffer.from(buildSeedISO({ domain, cloudInit, installGuestAgent: true, created: fixedNow }));
}

describe('a truncated seed is rebuilt', () => {
  it('an upload broken part way leaves a short seed; the next Create replaces it with the whole ISO', async () => {
    const harness = makeHarness({ mirror });
    harness.seedCache();
    const request = harness.request(domain);
    const whole = expectedSeed(request.cloudInit);
    expect(whole.length).toBeGreaterThan(uploadPacketBytes);
    harness.hypervisor.uploadHook = ({ volume, receivedBytes }) => {
      if (volume === seedName && receivedBytes >= uploadPacketBytes) throw new ConnectionKilledError('link dropped mid-upload');
    };
    const failure = await harness.provider.create(request).catch((err: unknown) => err);
    expect(errorClassOf(failure)).toBe('transient');
    expect(harness.hypervisor.volume(seedName)?.content.length).toBe(uploadPacketBytes);
    expect(harness.hypervisor.domains.has(domain)).toBe(false);

    harness.hypervisor.uploadHook = undefined;
    await harness.provider.create(request);
    expect(harness.hypervisor.volume(seedName)?.content.equals(whole)).toBe(true);
    expect(harness.hypervisor.domains.get(domain)?.state).toBe(DomainState.Running);
  });

  it('a leftover seed and overlay with no domain: the seed is deleted and rebuilt, the overlay reused', async () => {
    const harness = makeHarness({ mirror });
    harness.seedCache();
    const request = harness.request(domain);
    const overlayPath = harness.hypervisor.pathOf(harness.hypervisor.pool(), harness.imageVolumes.base);
    const overlay = harness.hypervisor.addVolume({ name: `${domain}.qcow2`, format: 'qcow2', content: 'overlay-bytes', backingPath: overlayPath });
    harness.hypervisor.addVolume({ name: seedName, content: expectedSeed(request.cloudInit).subarray(0, 1000) });

    await harness.provider.create(request);

    expect(harness.hypervisor.volume(`${domain}.qcow2`)).toBe(overlay);
    expect(overlay.content.toString()).toBe('overlay-bytes');
    expect(harness.hypervisor.volume(seedName)?.content.equals(expectedSeed(request.cloudInit))).toBe(true);
    const deletes = harness.hypervisor.calls.filter((call) => call.method === 'storageVolDelete').map((call) => call.subject);
    expect(deletes).toEqual([seedName]);
  });

  it('once the domain exists, a repeat Create leaves the seed alone', async () => {
    const harness = makeHarness({ mirror });
    harness.seedCache();
    await harness.provider.create(harness.request(domain));
    harness.hypervisor.domains.get(domain)!.state = DomainState.Shutoff;
    harness.hypervisor.resetCalls();
    await harness.provider.create(harness.request(domain));
    expect(harness.hypervisor.count('storageVolUpload')).toBe(0);
    expect(harness.hypervisor.count('storageVolDelete')).toBe(0);
    expect(harness.hypervisor.domains.get(domain)?.state).toBe(DomainState.Running);
  });
});
