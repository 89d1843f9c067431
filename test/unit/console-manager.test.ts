// The console manager over a fake provider's console devices: many watchers share one session and
// the buffer; output reaches each; a console another client holds is busy (never forced) until
// "take over"; the idle period releases a console nobody watches, but not while its Proxy boots;
// boot capture keeps the output for consoleLog; a new VM starts a new log, even under the same
// providerID; a deleted Proxy's console is forgotten; input goes through;
// resumed boot capture (a VM started before a restart) opens only while booting, costs no provider
// call while held, and leaves a console another client holds alone, trying again only much later;
// a replica that stops leading lets go of the consoles no page watches.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '@/server/control/clock';
import { ConsoleManager } from '@/server/control/console-manager';
import type { ConsoleStatus, ConsoleTarget, ConsoleWatcher } from '@/server/control/console-types';
import { providerSetOf, silentLogger } from '@/test/fakes/control-plane';
import { FakeProvider } from '@/test/fakes/fake-provider';

const idleReleaseMs = 60_000;
const providerID = 'fake/proxy-alpha';

let provider: FakeProvider;
let targets: Map<string, ConsoleTarget>;
let booting: Set<string>;
let manager: ConsoleManager;

beforeEach(async () => {
  vi.useFakeTimers();
  provider = new FakeProvider({ name: 'fake-1' });
  provider.put({ providerID, name: 'proxy-alpha', state: 'Running', managed: true, uid: 'u1' });
  targets = new Map([['alpha', { kind: 'managed', provider: 'fake-1', providerID }]]);
  booting = new Set();
  manager = new ConsoleManager({
    providers: await providerSetOf([provider]),
    locate: async (name) => targets.get(name) ?? { kind: 'missing' },
    booting: async (name) => booting.has(name),
    clock: systemClock,
    logger: silentLogger(),
    idleReleaseMs,
  });
});

afterEach(async () => {
  await manager.stop();
  vi.useRealTimers();
});

function recorder(): ConsoleWatcher & { text: () => string; statuses: ConsoleStatus[] } {
  const chunks: Buffer[] = [];
  const statuses: ConsoleStatus[] = [];
  return { output: (data) => chunks.push(data), status: (status) => statuses.push(status), text: () => Buffer.concat(chunks).toString(), statuses };
}

const device = () => provider.consoles.of(providerID);
const settle = () => vi.advanceTimersByTimeAsync(0);

describe('watching', () => {
  it('the first watcher opens the console without force; output reaches every watcher and the buffer', async () => {
    const first = recorder();
    const watch = manager.watch('alpha', first);
    expect(watch.snapshot.length).toBe(0);
    await settle();
    expect(manager.status('alpha')).toEqual({ state: 'live' });
    expect(first.statuses.at(-1)).toEqual({ state: 'live' });
    device().print('SeaBIOS\r\n');
    await settle();
    const second = recorder();
    const later = manager.watch('alpha', second);
    expect(later.snapshot.toString()).toBe('SeaBIOS\r\n');
    device().print('login: ');
    await settle();
    expect(first.text()).toBe('SeaBIOS\r\nlogin: ');
    expect(second.text()).toBe('login: ');
    expect(manager.consoleLog('alpha')).toBe('SeaBIOS\r\nlogin: ');
    expect(device().opens).toEqual([false]);
  });

  it('keystrokes reach the guest; without a session they are refused naming why', async () => {
    await expect(manager.input('alpha', Buffer.from('x'))).rejects.toMatchObject({ code: 'ERR_RESOURCE_UNAVAILABLE' });
    manager.watch('alpha', recorder());
    await settle();
    await manager.input('alpha', Buffer.from('root\r'));
    expect(Buffer.concat(device().input).toString()).toBe('root\r');
  });

  it('a Proxy without a VM yet shows closed with the reason, and nothing is opened', async () => {
    targets.set('beta', { kind: 'managed', provider: 'fake-1' });
    const watcher = recorder();
    manager.watch('beta', watcher);
    await settle();
    expect(manager.status('beta')).toEqual({ state: 'closed', message: 'the Proxy has no VM yet; its console opens when the VM starts' });
  });
});

describe('busy and take over', () => {
  it('a console an admin holds is busy, naming the host and what take over does; never forced', async () => {
    const release = device().holdElsewhere();
    const watcher = recorder();
    manager.watch('alpha', watcher);
    await settle();
    const status = manager.status('alpha');
    expect(status.state).toBe('busy');
    expect('message' in status && status.message).toMatch(
      /another client holds the serial console of fake\/proxy-alpha on host host-a.*"take over" disconnects that client/,
    );
    expect(device().opens).toEqual([false]);
    await expect(manager.input('alpha', Buffer.from('x'))).rejects.toMatchObject({ code: 'ERR_CONSOLE_BUSY' });
    release();
    // A new watcher tries again, still without force.
    manager.watch('alpha', recorder());
    await settle();
    expect(manager.status('alpha')).toEqual({ state: 'live' });
    expect(device().opens).toEqual([false, false]);
  });

  it('take over forces the open; the watchers see it go live', async () => {
    device().holdElsewhere();
    const watcher = recorder();
    manager.watch('alpha', watcher);
    await settle();
    expect(manager.status('alpha').state).toBe('busy');
    expect(await manager.takeOver('alpha')).toEqual({ state: 'live' });
    expect(device().opens).toEqual([false, true]);
    expect(watcher.statuses.map((status) => status.state)).toEqual(['opening', 'busy', 'opening', 'live']);
    device().print('ok');
    await settle();
    expect(watcher.text()).toBe('ok');
  });

  it('when another client takes it from us, the watchers see it closed with the reason', async () => {
    const watcher = recorder();
    manager.watch('alpha', watcher);
    await settle();
    device().holdElsewhere();
    await settle();
    expect(manager.status('alpha')).toMatchObject({ state: 'closed', message: expect.stringMatching(/another client took it over/) });
  });
});

describe('release', () => {
  it('releases a console nobody watched for the idle period, keeping its buffer', async () => {
    const watch = manager.watch('alpha', recorder());
    await settle();
    device().print('boot log');
    await settle();
    watch.stop();
    await vi.advanceTimersByTimeAsync(idleReleaseMs - 20_000);
    expect(device().held).toBe(true);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(device().held).toBe(false);
    expect(manager.status('alpha')).toEqual({ state: 'closed', message: 'released: nobody watched it for 60 s' });
    expect(manager.consoleLog('alpha')).toBe('boot log');
  });

  it('a watcher that comes back within the period keeps it open', async () => {
    const watch = manager.watch('alpha', recorder());
    await settle();
    watch.stop();
    await vi.advanceTimersByTimeAsync(idleReleaseMs / 2);
    const again = manager.watch('alpha', recorder());
    await vi.advanceTimersByTimeAsync(idleReleaseMs * 3);
    expect(device().held).toBe(true);
    again.stop();
    await vi.advanceTimersByTimeAsync(idleReleaseMs);
    expect(device().held).toBe(false);
  });

  it('re-opens on demand after a release', async () => {
    manager.watch('alpha', recorder()).stop();
    await vi.advanceTimersByTimeAsync(idleReleaseMs * 2);
    expect(device().held).toBe(false);
    manager.watch('alpha', recorder());
    await settle();
    expect(device().held).toBe(true);
    expect(device().opens).toEqual([false, false]);
  });

  it('a Proxy that is gone has its console released and its log dropped', async () => {
    manager.watch('alpha', recorder()).stop();
    await settle();
    device().print('x');
    await settle();
    targets.delete('alpha');
    await vi.advanceTimersByTimeAsync(idleReleaseMs);
    expect(device().held).toBe(false);
    expect(manager.consoleLog('alpha')).toBeUndefined();
  });
});

describe('boot capture', () => {
  /** alpha's VM just started and is booting; its console, captured, has printed TEXT. */
  async function capturedBoot(text: string): Promise<void> {
    booting.add('alpha');
    manager.capture('alpha', providerID);
    await settle();
    device().print(text);
    await settle();
  }

  it('captures from the start while booting, holds it past the idle period, releases it the idle period after boot', async () => {
    booting.add('alpha');
    manager.capture('alpha', providerID);
    await settle();
    expect(device().held).toBe(true);
    device().print('cloud-init[123]: Cloud-init v. 22.4.2 running\r\n');
    await vi.advanceTimersByTimeAsync(idleReleaseMs * 5);
    expect(device().held).toBe(true);
    booting.delete('alpha');
    await vi.advanceTimersByTimeAsync(idleReleaseMs - 15_000);
    expect(device().held).toBe(true);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(device().held).toBe(false);
    expect(manager.consoleLog('alpha')).toContain('Cloud-init v. 22.4.2 running');
  });

  it('never takes a console an admin holds: capture leaves it busy', async () => {
    device().holdElsewhere();
    booting.add('alpha');
    manager.capture('alpha', providerID);
    await settle();
    expect(manager.status('alpha').state).toBe('busy');
    expect(device().opens).toEqual([false]);
  });

  it('a new VM (a replacement) starts a new log', async () => {
    await capturedBoot('old boot');
    const replacement = 'fake/proxy-alpha-2';
    provider.put({ providerID: replacement, name: 'proxy-alpha', state: 'Running', managed: true, uid: 'u1' });
    manager.capture('alpha', replacement);
    await settle();
    expect(device().held).toBe(false);
    provider.consoles.of(replacement).print('new boot');
    await settle();
    expect(manager.consoleLog('alpha')).toBe('new boot');
  });

  it('a VM started again under the same providerID (instance names repeat: a replacement, a new Proxy of the same name) starts a new log', async () => {
    await capturedBoot('old boot');
    manager.capture('alpha', providerID);
    await settle();
    expect(device().held).toBe(true);
    device().print('new boot');
    await settle();
    expect(manager.consoleLog('alpha')).toBe('new boot');
  });

  it("forgets a deleted Proxy's console: released, its log gone", async () => {
    await capturedBoot('a boot');
    manager.forget('alpha');
    await settle();
    expect(device().held).toBe(false);
    expect(manager.consoleLog('alpha')).toBeUndefined();
    expect(manager.status('alpha').state).toBe('closed');
  });

  it('consoleLog is undefined for a Proxy nothing was captured for', () => {
    expect(manager.consoleLog('nobody')).toBeUndefined();
  });
});

describe('resumed boot capture', () => {
  it('opens the console of a VM still booting, without force; later output is in the buffer', async () => {
    booting.add('alpha');
    manager.resumeCapture('alpha', providerID);
    await settle();
    expect(manager.status('alpha')).toEqual({ state: 'live' });
    device().print('cloud-init[88]: modules-final running\r\n');
    await settle();
    expect(manager.consoleLog('alpha')).toBe('cloud-init[88]: modules-final running\r\n');
    expect(device().opens).toEqual([false]);
  });

  it('makes no provider call while the console is held here', async () => {
    booting.add('alpha');
    for (let pass = 0; pass < 5; pass++) {
      manager.resumeCapture('alpha', providerID);
      await settle();
    }
    expect(device().opens).toEqual([false]);
    expect(device().held).toBe(true);
  });

  it('opens nothing for a Proxy that is no longer booting (Ready)', async () => {
    manager.resumeCapture('alpha', providerID);
    await settle();
    expect(device().opens).toEqual([]);
    expect(manager.status('alpha').state).toBe('closed');
  });

  it('leaves a console another client holds alone: never forced, tried again only after the idle period', async () => {
    const release = device().holdElsewhere();
    booting.add('alpha');
    manager.resumeCapture('alpha', providerID);
    await settle();
    expect(manager.status('alpha').state).toBe('busy');
    for (let pass = 0; pass < 5; pass++) {
      await vi.advanceTimersByTimeAsync(10_000);
      manager.resumeCapture('alpha', providerID);
    }
    await settle();
    expect(device().opens).toEqual([false]);
    release();
    await vi.advanceTimersByTimeAsync(idleReleaseMs);
    manager.resumeCapture('alpha', providerID);
    await settle();
    expect(manager.status('alpha')).toEqual({ state: 'live' });
    expect(device().opens).toEqual([false, false]);
  });

  it('does not snatch back a console another client took from it: the next try waits the idle period', async () => {
    booting.add('alpha');
    manager.resumeCapture('alpha', providerID);
    await settle();
    const release = device().holdElsewhere();
    await settle();
    expect(manager.status('alpha').state).toBe('closed');
    await vi.advanceTimersByTimeAsync(idleReleaseMs / 2);
    manager.resumeCapture('alpha', providerID);
    await settle();
    expect(device().opens).toEqual([false]);
    release();
    await vi.advanceTimersByTimeAsync(idleReleaseMs / 2);
    manager.resumeCapture('alpha', providerID);
    await settle();
    expect(manager.status('alpha')).toEqual({ state: 'live' });
    expect(device().opens).toEqual([false, false]);
  });
});

describe('a change of leader', () => {
  it('a replica that stops leading releases the consoles no page watches, keeping their logs', async () => {
    booting.add('alpha');
    manager.resumeCapture('alpha', providerID);
    const other = 'fake/proxy-beta';
    provider.put({ providerID: other, name: 'proxy-beta', state: 'Running', managed: true, uid: 'u2' });
    targets.set('beta', { kind: 'managed', provider: 'fake-1', providerID: other });
    const watched = recorder();
    manager.watch('beta', watched);
    await settle();
    device().print('boot so far');
    await settle();
    await manager.releaseUnwatched('released: this replica no longer leads');
    expect(device().held).toBe(false);
    expect(manager.status('alpha')).toEqual({ state: 'closed', message: 'released: this replica no longer leads' });
    expect(manager.consoleLog('alpha')).toBe('boot so far');
    expect(provider.consoles.of(other).held).toBe(true);
    expect(watched.statuses.at(-1)).toEqual({ state: 'live' });
  });
});
