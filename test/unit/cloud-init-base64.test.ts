// cloud-init that is not UTF-8 text (gzipped user-data, which cloud-init accepts) travels the API
// as `cloudInitBase64` and reaches the seed byte for byte: through the Proxy service, the
// reconciler and the kvm2 provider onto the seed volume the fake hypervisor holds.
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cloudInitBytes } from '@/lib/proxy-spec';
import { instanceName, specHash } from '@/server/control/names';
import { seedVolumeName } from '@/server/providers/kvm2/volume';
import { controlPlane, type Harness, managedProxy } from '@/test/fakes/control-plane';
import { makeHarness, TestMirror } from './kvm2-fixture';

const mirror = new TestMirror();
beforeAll(() => mirror.start());
afterAll(() => mirror.stop());

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

// Not valid UTF-8: as text, these bytes could not be sent at all.
const userData = gzipSync(Buffer.from('#cloud-config\npackages: [squid]\n'));

describe('cloud-init as base64', () => {
  it('lands on the seed byte for byte', async () => {
    const kvm2 = makeHarness({ mirror });
    kvm2.seedCache();
    harness = await controlPlane({ providers: [kvm2.provider] });
    const view = await harness.proxies.create(
      managedProxy('gz', {
        provider: kvm2.provider.name,
        placement: { zone: 'h1', machineType: 'small', image: 'img' },
        cloudInit: undefined,
        cloudInitBase64: userData.toString('base64'),
      }),
    );
    expect(view.cloudInit).toEqual({ bytes: userData.length });
    await harness.settle();

    const seed = kvm2.hypervisor.volume(seedVolumeName(instanceName('gz')));
    expect(seed).toBeDefined();
    expect(seed?.content.includes(userData)).toBe(true);
  });

  it('hashes the bytes, so the same user-data as text or as base64 is the same spec', () => {
    const text = '#cloud-config\nhostname: a\n';
    const spec = { mode: 'Managed', provider: 'p', placement: { machineType: 's', image: 'i' }, port: 3128, labels: {} } as const;
    expect(specHash({ ...spec, cloudInit: '', cloudInitBase64: Buffer.from(text).toString('base64') })).toBe(specHash({ ...spec, cloudInit: text }));
    expect(cloudInitBytes({ cloudInit: '', cloudInitBase64: userData.toString('base64') })).toEqual(new Uint8Array(userData));
  });

  it('an update may switch between text and base64; leaving both out keeps the stored bytes', async () => {
    const kvm2 = makeHarness({ mirror });
    harness = await controlPlane({ providers: [kvm2.provider] });
    const created = managedProxy('sw', { provider: kvm2.provider.name, placement: { zone: 'h1', machineType: 'small', image: 'img' } });
    await harness.proxies.create(created);
    const { name: _name, cloudInit: _cloudInit, ...update } = created as Extract<typeof created, { mode: 'Managed' }>;
    expect((await harness.proxies.update('sw', { ...update, cloudInitBase64: userData.toString('base64') })).cloudInit).toEqual({ bytes: userData.length });
    expect((await harness.proxies.update('sw', { ...update, labels: { a: 'b' } })).cloudInit).toEqual({ bytes: userData.length });
    expect((await harness.proxies.update('sw', { ...update, cloudInit: 'x' })).cloudInit).toEqual({ bytes: 1 });
  });
});
