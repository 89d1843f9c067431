// Health checks dial urgently (ahead of the other loops' queued dials in the process's dial
// limiter), the pooled connection the other loops share does not: after a start with many hosts
// on one sshd, every host gets its reason first (bench:scale).
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHostBackend } from '@/server/providers/kvm2/hosts';
import { Kvm2Provider } from '@/server/providers/kvm2/provider';
import { silentLogger } from '@/test/fakes/control-plane';
import { kvm2Settings } from '@/test/fakes/kvm2-settings';
import { startFakeLibvirtd } from './kvm2-fake-libvirtd';
import { Resources } from './ssh-harness';

const resources = new Resources();
afterEach(() => resources.cleanup());

describe('kvm2 dials', () => {
  it('are urgent for the health check and ordinary for the pooled connection', async () => {
    const socket = (await startFakeLibvirtd(resources, await resources.tempDir())).path;
    const settings = kvm2Settings({ hosts: [{ name: 'beelink', address: 'beelink.lan:22', user: 'u', bridge: 'br0', socket }] });
    const dials: { urgent: boolean }[] = [];
    const backend = createHostBackend({
      providerName: settings.name,
      settings,
      logger: silentLogger(),
      dialTransport: (host, options) => {
        dials.push({ urgent: options.urgent === true });
        return new Promise((resolve, reject) => {
          const transport = connect(host.socket, () => resolve(transport));
          transport.once('error', reject);
        });
      },
    });
    resources.add(() => backend.closeAll());
    const provider = new Kvm2Provider({ settings, backend, logger: silentLogger() });

    const [target] = await provider.check({});
    expect(target).toMatchObject({ name: 'beelink', ready: true });
    expect(dials).toEqual([{ urgent: true }]);

    await backend.pooled('beelink');
    expect(dials).toEqual([{ urgent: true }, { urgent: false }]);
  });
});
