// kvm2's console capability over the in-memory libvirt: a managed domain's console opens without
// FORCE; one another client holds is the contract's ConsoleBusyError naming the host (FORCE only
// when asked, and then the other client's stream ends); a foreign domain's console stays closed;
// a missing domain is NotFound; Create tells its caller when the domain has started.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainState } from '@/server/libvirt';
import { errorClassOf } from '@/server/providers/errors';
import { ConsoleBusyError } from '@/server/providers/instance-console';
import { buildMetadataXML, metadataURI } from '@/server/providers/kvm2/metadata';
import { failureOf, makeHarness, providerIdOf, TestMirror } from './kvm2-fixture';

const mirror = new TestMirror();
beforeAll(() => mirror.start());
afterAll(() => mirror.stop());

const domain = 'proxy-console';
const id = providerIdOf('h1', domain);
const marked = { [metadataURI]: buildMetadataXML({ managed: true, uid: 'u-1', created: '2026-02-03T04:05:06Z' }) };

function running(metadata: Record<string, string> = marked) {
  const harness = makeHarness({ mirror });
  harness.hypervisor.addDomain({ name: domain, metadata, state: DomainState.Running });
  return harness;
}

async function readSome(output: AsyncIterable<Uint8Array>): Promise<string> {
  for await (const chunk of output) return Buffer.from(chunk).toString();
  return '';
}

describe('kvm2 console', () => {
  it('opens a managed domain console without FORCE: output in, keystrokes out, close releases it', async () => {
    const { provider, hypervisor } = running();
    const session = await provider.console.open(id);
    const device = hypervisor.consoles.of(domain);
    expect(device.opens).toEqual([false]);
    device.print('Debian GNU/Linux 12 proxy-console ttyS0\r\n');
    expect(await readSome(session.output)).toContain('ttyS0');
    await session.send(Buffer.from('root\r'));
    expect(Buffer.concat(device.input).toString()).toBe('root\r');
    await session.close();
    expect(device.held).toBe(false);
  });

  it('a console another client holds is ConsoleBusyError naming host and domain; nothing forced', async () => {
    const { provider, hypervisor } = running();
    const device = hypervisor.consoles.of(domain);
    device.holdElsewhere();
    const err = await failureOf(provider.console.open(id));
    expect(err).toBeInstanceOf(ConsoleBusyError);
    expect(err).toMatchObject({ code: 'ERR_CONSOLE_BUSY', host: 'h1', instance: domain });
    expect(err?.message).toBe(
      `another client holds the serial console of ${domain} on host h1 (an admin's virsh console, say); "take over" disconnects that client`,
    );
    expect(device.opens).toEqual([false]);
  });

  it('force takes it over: the holder before is disconnected', async () => {
    const { provider, hypervisor } = running();
    const first = await provider.console.open(id);
    const taken = await provider.console.open(id, { force: true });
    expect(hypervisor.consoles.of(domain).opens).toEqual([false, true]);
    await expect(readSome(first.output)).rejects.toMatchObject({ codeName: 'ErrRPC' });
    await taken.close();
  });

  it('refuses a domain without kvm2 mark (permanent) and a missing domain (NotFound)', async () => {
    const { provider, hypervisor } = running({});
    const foreign = await failureOf(provider.console.open(id));
    expect(errorClassOf(foreign)).toBe('permanent');
    expect(foreign?.message).toMatch(/not managed by this provider/);
    expect(hypervisor.consoles.of(domain).opens).toEqual([]);
    const missing = await failureOf(provider.console.open(providerIdOf('h1', 'proxy-gone')));
    expect(errorClassOf(missing)).toBe('notFound');
    const unknownHost = await failureOf(provider.console.open(providerIdOf('h9', domain)));
    expect(errorClassOf(unknownHost)).toBe('permanent');
  });

  it('the open and the release are logged; keystrokes never are', async () => {
    const { provider, rawLogs } = running();
    const session = await provider.console.open(id);
    await session.send(Buffer.from('hunter2-typed-password\r'));
    await session.close();
    const text = rawLogs.join('');
    expect(text).toContain('kvm2 console opened');
    expect(text).toContain('kvm2 console released');
    expect(text).not.toContain('hunter2');
  });

  it('Create calls onStarted with the providerID once the domain was started', async () => {
    const harness = makeHarness({ mirror });
    harness.seedCache();
    const started: string[] = [];
    await harness.provider.create(harness.request('proxy-new', { onStarted: (providerID) => started.push(providerID) }));
    expect(started).toEqual([providerIdOf('h1', 'proxy-new')]);
  });
});
