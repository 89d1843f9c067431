// One hypervisor down while the other keeps working, through the runtime: lab2's libvirtd is
// stopped, then its sshd too. The health monitor reports lab2 with a reason for each while lab1
// stays Reachable, and Proxies on lab1 are created and deleted as usual meanwhile; a Proxy placed
// on lab2 while it is down waits (transient errors, never Failed) and gets its running domain once
// lab2 is back (up.sh restarts what does not answer on its socket).
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ProxyNotFoundError } from '@/server/control/errors';
import { instanceName } from '@/server/control/names';
import type { Runtime } from '@/server/runtime';
import { type Lab, type LabHost, loadLab, runCommand } from './harness/lab';
import { stopHostDaemon } from './harness/stop-daemon';
import { ControlLabRun, domainState, labProxy } from './control-support';

const upScript = fileURLToPath(new URL('./up.sh', import.meta.url));

let lab: Lab;
let lab1: LabHost;
let lab2: LabHost;
let run: ControlLabRun;
let runtime: Runtime;
let entry: string;
let waiting: string;

beforeAll(async () => {
  lab = loadLab();
  [lab1, lab2] = lab.hosts as [LabHost, LabHost];
  run = new ControlLabRun(lab);
  entry = run.entryName('down');
  waiting = run.proxyName('waits');
  runtime = await run.start({ entries: [{ suffix: 'down' }], env: { PROVIDER_CHECK_INTERVAL: '2s', RECONCILE_BACKOFF_CAP: '3s' } });
});
afterAll(async () => {
  // lab2 comes back whatever happened above: later tests need it.
  await runCommand(['bash', upScript], { timeoutMs: 300_000 });
  await run?.cleanUp();
});

const target = async (host: string) =>
  (await runtime.services.providers.list()).find((summary) => summary.name === entry)?.targets.find((candidate) => candidate.name === host);
const reasonOf = async (host: string) => (await target(host))?.reason;

/** A Proxy on lab1 goes all the way: a running domain, then deleted with nothing left. */
async function createAndDeleteOnLab1(what: string): Promise<void> {
  const name = run.proxyName(what);
  await runtime.services.proxies.create(labProxy({ name, provider: entry, zone: lab1.name }));
  await vi.waitFor(async () => expect(await domainState(instanceName(name), lab1.name), `${name} to run on lab1`).toBe('running'), {
    timeout: 90_000,
    interval: 250,
  });
  await runtime.services.proxies.delete(name);
  await vi.waitFor(async () => await expect(runtime.services.proxies.get(name), `${name} to be removed`).rejects.toThrow(ProxyNotFoundError), {
    timeout: 60_000,
    interval: 250,
  });
  expect(await domainState(instanceName(name), lab1.name)).toBeUndefined();
}

/** The waiting Proxy on lab2 has not failed and its last error is transient. */
async function stillWaiting(): Promise<void> {
  const view = await runtime.services.proxies.get(waiting);
  expect(view.status.phase).not.toBe('Failed');
  expect(view.status.providerID).toBeUndefined();
  expect((await runtime.services.proxies.events(waiting)).some((event) => event.reason === 'Failed')).toBe(false);
}

describe('one hypervisor down while the other keeps working', () => {
  const seen: Record<string, { reason?: string; message?: string }> = {};

  it('both hosts are Reachable to begin with', async () => {
    await vi.waitFor(async () => expect([await reasonOf(lab1.name), await reasonOf(lab2.name)], 'both hosts Reachable').toEqual(['Reachable', 'Reachable']), {
      timeout: 60_000,
      interval: 250,
    });
  });

  it("with lab2's libvirtd stopped: lab2 has a reason, lab1 stays Reachable and keeps creating and deleting", async () => {
    await stopHostDaemon(lab2, 'libvirtd');
    await vi.waitFor(async () => expect((await target(lab2.name))?.ready, 'lab2 to be reported down').toBe(false), { timeout: 30_000, interval: 250 });
    seen.libvirtd = { reason: await reasonOf(lab2.name), message: (await target(lab2.name))?.message };
    // sshd answers, the forward to libvirt's socket does not: the socket is refused.
    expect(seen.libvirtd.reason).toBe('Unreachable');
    expect(seen.libvirtd.message).toContain('libvirt-sock');
    expect(await reasonOf(lab1.name)).toBe('Reachable');

    await runtime.services.proxies.create(labProxy({ name: waiting, provider: entry, zone: lab2.name }));
    await createAndDeleteOnLab1('while-libvirtd-down');
    await vi.waitFor(async () => expect((await runtime.services.proxies.get(waiting)).status.lastError, `${waiting} to record an error`).toBeDefined(), {
      timeout: 30_000,
      interval: 250,
    });
    expect((await runtime.services.proxies.get(waiting)).status.lastError?.class).toBe('transient');
    await stillWaiting();
  });

  it("with lab2's sshd stopped as well: another reason for lab2, lab1 still unaffected", async () => {
    await stopHostDaemon(lab2, 'sshd');
    await vi.waitFor(async () => expect((await target(lab2.name))?.message, 'lab2 to be reported without its sshd').not.toBe(seen.libvirtd?.message), {
      timeout: 30_000,
      interval: 250,
    });
    seen.sshd = { reason: await reasonOf(lab2.name), message: (await target(lab2.name))?.message };
    expect(seen.sshd.reason).toBe('Unreachable');
    expect(seen.sshd.message).toMatch(/ECONNREFUSED|refused/i);
    expect(await reasonOf(lab1.name)).toBe('Reachable');
    await createAndDeleteOnLab1('while-sshd-down');
    await stillWaiting();
  });

  it('lab2 recovers once up.sh brings its daemons back, and the waiting Proxy gets its domain there', async () => {
    const up = await runCommand(['bash', upScript], { timeoutMs: 300_000 });
    expect(up.exitCode, up.stderr).toBe(0);
    await vi.waitFor(async () => expect(await reasonOf(lab2.name), 'lab2 Reachable again').toBe('Reachable'), { timeout: 60_000, interval: 250 });
    await vi.waitFor(async () => expect(await domainState(instanceName(waiting), lab2.name), `${waiting} to run on lab2`).toBe('running'), {
      timeout: 120_000,
      interval: 500,
    });
    // The domain runs before the provider's Create returns and the reconciler records its ID: on a
    // busy machine that is seconds later.
    await vi.waitFor(
      async () =>
        expect((await runtime.services.proxies.get(waiting)).status.providerID, `${waiting} to record its domain`).toBe(
          `hosts/lab2/domains/${instanceName(waiting)}`,
        ),
      { timeout: 60_000, interval: 250 },
    );
    expect(await domainState(instanceName(waiting), lab1.name)).toBeUndefined();
  });
});
