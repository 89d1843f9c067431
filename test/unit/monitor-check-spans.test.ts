// The health monitor opens one `providerhealth.check` span per target, and everything the kvm2
// check does for that target (the fresh dial, its RPCs) is a child of it; a target that is not
// ready marks its span Error with the reason.
import { connect } from 'node:net';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import type { Monitor } from '@/server/control/monitor';
import { createHostBackend } from '@/server/providers/kvm2/hosts';
import { Kvm2Provider } from '@/server/providers/kvm2/provider';
import { openStore } from '@/server/store';
import { silentLogger, tempDir } from '@/test/fakes/control-plane';
import { monitorOf } from '@/test/support/monitor';
import { kvm2Settings } from '@/test/fakes/kvm2-settings';
import { startFakeLibvirtd } from './kvm2-fake-libvirtd';
import { captureSpans } from './span-capture';
import { Resources } from './ssh-harness';

const exporter = captureSpans();
const resources = new Resources();
afterEach(() => resources.cleanup());

async function kvm2Provider(socketOf: (host: string) => Promise<string>) {
  const sockets = { beelink: await socketOf('beelink'), nuc: await socketOf('nuc') };
  const settings = kvm2Settings({
    hosts: [
      { name: 'beelink', address: 'beelink.lan:22', user: 'u', bridge: 'br0', socket: sockets.beelink },
      { name: 'nuc', address: 'nuc.lan:22', user: 'u', bridge: 'br0', socket: sockets.nuc },
    ],
  });
  const logger = silentLogger();
  const backend = createHostBackend({
    providerName: settings.name,
    settings,
    logger,
    dialTransport: (host) =>
      new Promise((resolve, reject) => {
        const socket = connect(host.socket, () => resolve(socket));
        socket.once('error', reject);
      }),
  });
  resources.add(() => backend.closeAll());
  return new Kvm2Provider({ settings, backend, logger });
}

/** A monitor of `provider` alone, on a store of its own. */
async function monitorOver(provider: Kvm2Provider): Promise<Monitor> {
  const dir = tempDir();
  resources.add(async () => dir.remove());
  const store = await openStore({ dataDir: dir.path });
  resources.add(async () => store.close());
  return monitorOf({ provider, store });
}

describe('providerhealth.check', () => {
  it('is one span per target, parenting that target dial and RPC spans', async () => {
    const provider = await kvm2Provider(async () => (await startFakeLibvirtd(resources, await resources.tempDir())).path);
    const monitor = await monitorOver(provider);
    const [health] = await monitor.runOnce();
    expect(health?.targets.map((target) => [target.name, target.reason])).toEqual([
      ['beelink', 'Reachable'],
      ['nuc', 'Reachable'],
    ]);

    const spans = exporter.getFinishedSpans();
    const checks = spans.filter((span) => span.name === 'providerhealth.check');
    expect(checks.map((span) => span.attributes['provider.target']).sort()).toEqual(['beelink', 'nuc']);
    for (const check of checks) {
      expect(check.kind).toBe(SpanKind.INTERNAL);
      expect(check.attributes).toMatchObject({ 'provider.name': provider.name, 'provider.type': 'kvm2', 'provider.reason': 'Reachable' });
      expect(check.status.code).toBe(SpanStatusCode.UNSET);
      const children = spans.filter((span) => span.parentSpanContext?.spanId === check.spanContext().spanId);
      const host = check.attributes['provider.target'];
      expect(children.map((span) => span.name).sort()).toEqual(
        // The spec's four calls, and the domain capabilities for the virtualisation type (issue 27, item 5).
        [
          'kvm2.ConnectGetHostname',
          'kvm2.ConnectGetLibVersion',
          'kvm2.StoragePoolGetInfo',
          'kvm2.StoragePoolLookupByName',
          'kvm2.ConnectGetDomainCapabilities',
          'kvm2.dial',
        ].sort(),
      );
      for (const child of children) expect(child.attributes['kvm2.host']).toBe(host);
    }
    // Nothing of the check is left without a parent.
    const orphans = spans.filter((span: ReadableSpan) => span.name !== 'providerhealth.check' && span.parentSpanContext === undefined);
    expect(orphans.map((span) => span.name)).toEqual([]);
  });

  it('marks a target that is not ready Error, with its reason', async () => {
    const provider = await kvm2Provider(async (host) =>
      host === 'nuc' ? '/nowhere/libvirt-sock' : (await startFakeLibvirtd(resources, await resources.tempDir())).path,
    );
    const monitor = await monitorOver(provider);
    await monitor.runOnce();
    const nuc = exporter.getFinishedSpans().find((span) => span.name === 'providerhealth.check' && span.attributes['provider.target'] === 'nuc');
    expect(nuc?.status.code).toBe(SpanStatusCode.ERROR);
    expect(nuc?.status.message).toMatch(/^Unreachable: /);
  });
});
