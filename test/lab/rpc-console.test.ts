// A domain's serial console through our client against the lab's real libvirtd over real sshd
// (REMOTE_PROC_DOMAIN_OPEN_CONSOLE = 201). The lab domain has no OS; started paused and resumed
// once the console is open, it shows SeaBIOS's banner (`<bios useserial>`). Then the stream's
// life: it takes keystrokes, a second
// open without FORCE is ConsoleBusyError (libvirtd's ErrOperationFailed, code 9), FORCE takes it
// over and the first holder's output fails with ErrRPC, finish and abort both release the device,
// and destroying the domain ends the output cleanly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleBusyError, DomainConsoleFlags, isLibvirtError, type Domain, type DuplexStream, type LibvirtClient } from '@/server/libvirt';
import { virsh } from './harness/lab';
import { idleDomainSuite } from './rpc-domain-support';
import { openOverSsh, uniqueName } from './rpc-lab-support';

const name = uniqueName('console');
// Paused until the console is open, so nothing the firmware prints is missed.
const suite = idleDomainSuite({ name, paused: true });
let libvirt: LibvirtClient;
/** A second client on the same host, as another admin's session would be. */
let other: LibvirtClient;
let dom: Domain;

beforeAll(async () => {
  libvirt = suite.libvirt;
  other = await openOverSsh(suite.lab, { host: suite.lab.hosts[0] });
  dom = await libvirt.domainLookupByName({ name });
});

afterAll(async () => {
  await other?.close();
});

/** Collects a stream's output in the background: its text so far and how it ended. */
function collect(stream: DuplexStream) {
  const state = { text: '', ended: undefined as undefined | { error: unknown } };
  void (async () => {
    try {
      for await (const chunk of stream.output) state.text += chunk.toString('latin1');
      state.ended = { error: null };
    } catch (error) {
      state.ended = { error };
    }
  })();
  return state;
}

/**
 * Opens without FORCE, retrying while ConsoleBusyError: libvirtd confirms a finish (or takes an
 * abort) before it has released the device, so an open right behind it can still find it busy.
 */
async function openOnceReleased(client: LibvirtClient): Promise<DuplexStream> {
  const started = Date.now();
  for (;;) {
    try {
      return await client.domainOpenConsole({ dom });
    } catch (err) {
      if (!(err instanceof ConsoleBusyError) || Date.now() - started > 3_000) throw err;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

describe('domain console', () => {
  let first: DuplexStream;
  let firstOutput: ReturnType<typeof collect>;

  it('opens the console of a running domain, shows what the firmware prints and takes keystrokes', async () => {
    first = await libvirt.domainOpenConsole({ dom });
    firstOutput = collect(first);
    await virsh(['resume', name]);
    await expect.poll(() => firstOutput.text.includes('SeaBIOS'), { message: 'the SeaBIOS banner on the console', timeout: 15_000, interval: 50 }).toBe(true);
    await first.send(Buffer.from('\r'));
    expect(firstOutput.ended).toBeUndefined();
  });

  it('a second client without FORCE gets ConsoleBusyError (ErrOperationFailed, code 9)', async () => {
    const err = await other.domainOpenConsole({ dom }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConsoleBusyError);
    expect(err).toMatchObject({ code: 9, codeName: 'ErrOperationFailed', procedure: 'domainOpenConsole' });
    expect(other.alive).toBe(true);
  });

  it('FORCE takes it over: the first holder output fails with ErrRPC, the new stream is live', async () => {
    const taken = await other.domainOpenConsole({ dom, flags: DomainConsoleFlags.Force });
    await expect.poll(() => firstOutput.ended !== undefined, { message: 'the first stream to end', timeout: 15_000, interval: 50 }).toBe(true);
    expect(isLibvirtError(firstOutput.ended?.error, 'ErrRPC')).toBe(true);
    await expect(first.send(Buffer.from('x'))).rejects.toBe(firstOutput.ended?.error);
    expect(libvirt.alive).toBe(true);
    await taken.send(Buffer.from('\r'));
    await taken.finish();
    expect(await taken.ended).toBeNull();
  });

  it('after finish the console is free: an open without FORCE succeeds; after abort too', async () => {
    const again = await openOnceReleased(libvirt);
    again.abort();
    expect(await again.ended).toBeNull();
    const third = await openOnceReleased(other);
    await third.finish();
  });

  it('destroying the domain ends the output cleanly (end of stream, then finish)', async () => {
    const stream = await libvirt.domainOpenConsole({ dom, flags: DomainConsoleFlags.Safe });
    const output = collect(stream);
    await virsh(['destroy', name]);
    await expect.poll(() => output.ended !== undefined, { message: 'the console to end with the domain', timeout: 15_000, interval: 50 }).toBe(true);
    expect(output.ended?.error).toBeNull();
    expect(await stream.ended).toBeNull();
    expect(libvirt.alive).toBe(true);
    expect(await libvirt.connectGetHostname()).toBe((await virsh(['hostname'])).trim());
  });
});
