// The execution log's table test: Create broken after each of its steps (an error from libvirt,
// or the connection dying under it) and then run again converges on the same end state as a
// Create that was never interrupted, and never reports NotFound.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainState } from '@/server/libvirt';
import { errorClassOf } from '@/server/providers/errors';
import { buildSeedISO } from '@/server/providers/kvm2/seed';
import { parseDomainXML } from '@/server/providers/kvm2/xml-parse';
import { ConnectionKilledError } from '@/server/libvirt';
import type { FakeHypervisor } from '@/test/fakes/fake-libvirt';
import { fixedNow, makeHarness, TestMirror, testImage, testImageDigest, type Harness } from './kvm2-fixture';

const mirror = new TestMirror();
beforeAll(() => mirror.start());
afterAll(() => mirror.stop());

const domain = 'proxy-converge';

function expectConverged(harness: Harness, hypervisor: FakeHypervisor): void {
  const { base, marker } = harness.imageVolumes;
  expect(hypervisor.volumeNames()).toEqual([`${domain}-seed.iso`, `${domain}.qcow2`, base, marker].sort());
  expect(hypervisor.volume(base)?.content.equals(testImage)).toBe(true);
  expect(hypervisor.volume(marker)?.content.toString()).toBe(testImageDigest);
  const pool = hypervisor.pool();
  expect(hypervisor.volume(`${domain}.qcow2`)?.backingPath).toBe(hypervisor.pathOf(pool, base));
  const seed = hypervisor.volume(`${domain}-seed.iso`)?.content;
  const expectedSeed = buildSeedISO({
    domain,
    cloudInit: harness.request(domain).cloudInit,
    installGuestAgent: true,
    created: fixedNow,
  });
  expect(seed && Buffer.from(expectedSeed).equals(seed)).toBe(true);
  const dom = hypervisor.domains.get(domain);
  expect(dom?.state).toBe(DomainState.Running);
  const description = parseDomainXML(dom?.xml ?? '');
  expect(description.metadata).toEqual({ managed: true, uid: `uid-${domain}`, created: '2026-09-16T17:42:11Z' });
  expect(description.disks.map((disk) => disk.sourceFile)).toEqual([hypervisor.pathOf(pool, `${domain}.qcow2`), hypervisor.pathOf(pool, `${domain}-seed.iso`)]);
}

/** The RPCs an uninterrupted first Create makes (image download included), in order. */
async function cleanRun(): Promise<string[]> {
  const harness = makeHarness({ mirror });
  const instance = await harness.provider.create(harness.request(domain));
  expect(instance).toMatchObject({ providerID: `hosts/h1/domains/${domain}`, name: domain, state: 'Provisioning' });
  expectConverged(harness, harness.hypervisor);
  return harness.hypervisor.calls.map((call) => `${call.method}(${call.subject ?? ''})@${call.connection.replace(/#\d+/, '')}`);
}

describe('Create converges after being broken at any step', () => {
  let steps: string[] = [];
  beforeAll(async () => {
    steps = await cleanRun();
  });

  it('an uninterrupted Create walks the expected steps, the upload on a fresh connection', () => {
    expect(steps[0]).toBe(`domainLookupByName(${domain})@pooled`);
    expect(steps).toContain('storageVolUpload(base-t-img.qcow2)@fresh');
    const marker = steps.indexOf('storageVolUpload(base-t-img.qcow2.sha256)@pooled');
    expect(steps.indexOf('storagePoolRefresh(default)@pooled')).toBeLessThan(marker);
    expect(marker).toBeLessThan(steps.indexOf(`storageVolCreateXml(${domain}.qcow2)@pooled`));
    expect(steps.at(-1)).toBe(`domainGetState(${domain})@pooled`);
  });

  const breaks = [
    { label: 'libvirt error', error: () => 'ErrInternalError' as const },
    { label: 'connection killed', error: () => new ConnectionKilledError('another call was abandoned') },
  ];

  for (const kind of breaks) {
    it(`re-running after a ${kind.label} at each step converges, never NotFound`, async () => {
      expect(steps.length).toBeGreaterThan(15);
      for (let index = 0; index < steps.length; index += 1) {
        const harness = makeHarness({ mirror });
        harness.hypervisor.failCallAt(index, kind.error());
        const failure = await harness.provider.create(harness.request(domain)).then(
          () => undefined,
          (err: unknown) => err,
        );
        expect(failure, `step ${index}: ${steps[index]}`).toBeInstanceOf(Error);
        expect(errorClassOf(failure), `step ${index}: ${steps[index]}`).toBe('transient');
        harness.hypervisor.clearFailures();
        await harness.provider.create(harness.request(domain));
        expectConverged(harness, harness.hypervisor);
      }
      // Two Creates per step, over twenty steps: 4.5 s alone on an idle 2-core machine.
    }, 30_000);
  }

  it('a NotFound code from libvirt inside Create is transient', async () => {
    const harness = makeHarness({ mirror });
    harness.seedCache();
    harness.hypervisor.failOnce('domainCreate', 'ErrNoDomain');
    await expect(harness.provider.create(harness.request(domain))).rejects.toMatchObject({ errorClass: 'transient' });
    await harness.provider.create(harness.request(domain));
    expectConverged(harness, harness.hypervisor);
  });

  it('a repeat Create of a running domain touches no volume', async () => {
    const harness = makeHarness({ mirror });
    await harness.provider.create(harness.request(domain));
    harness.hypervisor.resetCalls();
    await harness.provider.create(harness.request(domain));
    expect(harness.hypervisor.calls.map((call) => call.method)).toEqual(['domainLookupByName', 'domainGetMetadata', 'domainGetState']);
  });
});
