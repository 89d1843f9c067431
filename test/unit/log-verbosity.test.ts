// The spec's logr levels mapped onto pino's: V(0) at info, V(1) at debug (`--zap-log-level=debug`),
// V(2) at trace (`--zap-log-level=2`). Each line of the spec's Logging section, at its level.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainState } from '@/server/libvirt';
import { buildMetadataXML, metadataURI } from '@/server/providers/kvm2/metadata';
import { makeHarness, providerIdOf, TestMirror, type Harness } from './kvm2-fixture';

const mirror = new TestMirror();
beforeAll(() => mirror.start());
afterAll(() => mirror.stop());

/** Every operation whose lines the spec names: a create with a download, get, list, delete, not found, check. */
async function exercise(logLevel: string): Promise<Harness> {
  const harness = makeHarness({ mirror, logLevel });
  const instance = await harness.provider.create(harness.request('proxy-a'));
  await harness.provider.get(instance.providerID);
  await harness.provider.listByTag('managed');
  // a booting guest: no address from either source
  harness.hypervisor.addDomain({
    name: 'proxy-boot',
    state: DomainState.Running,
    metadata: { [metadataURI]: buildMetadataXML({ managed: true, uid: 'u', created: '2026-01-01T00:00:00Z' }) },
  });
  await harness.provider.get(providerIdOf('h1', 'proxy-boot')).catch(() => undefined);
  await harness.provider.delete(instance.providerID);
  await harness.provider.get(instance.providerID).catch(() => undefined);
  await harness.provider.check();
  return harness;
}

const v1 = [
  'kvm2 domain ensured running',
  'kvm2 domain fetched',
  'kvm2 domain not found',
  'kvm2 domain deleted',
  'kvm2 domains listed',
  'kvm2 host checked',
  'overlay volume created',
  'seed volume uploaded',
  'domain defined',
  'domain started',
  'fetching base image into host pool',
  'base image cached',
];
const v2 = ['kvm2 create resolved', 'kvm2 listed instance', 'no addresses from source'];

describe('log verbosity', () => {
  it('shows none of the V(1) or V(2) lines at info', async () => {
    const messages = new Set((await exercise('info')).logs.map((line) => line.msg));
    expect([...v1, ...v2].filter((msg) => messages.has(msg))).toEqual([]);
  });

  it('shows every V(1) line at debug, and no V(2) line', async () => {
    const lines = (await exercise('debug')).logs;
    for (const msg of v1)
      expect(
        lines.find((line) => line.msg === msg),
        msg,
      ).toMatchObject({ level: 20 });
    const messages = new Set(lines.map((line) => line.msg));
    expect(v2.filter((msg) => messages.has(msg))).toEqual([]);
    expect(lines.find((line) => line.msg === 'domain defined')).not.toHaveProperty('xml');
  });

  it('adds the V(2) lines at trace, and the domain XML on `domain defined`', async () => {
    const lines = (await exercise('trace')).logs;
    for (const msg of v2)
      expect(
        lines.find((line) => line.msg === msg),
        msg,
      ).toMatchObject({ level: 10 });
    expect(lines.find((line) => line.msg === 'domain defined')).toHaveProperty('xml');
  });
});
