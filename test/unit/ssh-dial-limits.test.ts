import { afterEach, describe, expect, it } from 'vitest';
import { dialSsh, dialUnixSocket, type SshConnection } from '@/server/ssh';
import { configureSshDials, defaultDialLimits, dialSilenceMs, dialStallMs, sshDialLimiter } from '@/server/ssh/dial-limiter';
import { Resources, startDialScenario, startSilentServer } from './ssh-harness';

const resources = new Resources();
afterEach(async () => {
  configureSshDials(defaultDialLimits);
  await resources.cleanup();
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => new Error('expected the dial to fail'),
    (err: unknown) => err,
  );
}

/** With one dial per address, a dial to a silent host that holds the address's only slot until released. */
async function holdTheOnlySlot() {
  configureSshDials({ maxInFlight: 32, perAddress: 1 });
  const scenario = await startDialScenario(resources);
  const silent = await startSilentServer(resources);
  const holder = new AbortController();
  const holding = rejection(dialSsh({ ...scenario.dialOptions, address: silent.address, timeoutMs: 60_000, signal: holder.signal }));
  await expect.poll(() => silent.sockets.length).toBe(1);
  const release = async (reason?: Error) => {
    holder.abort(reason);
    await holding;
  };
  return { scenario, silent, release };
}

describe('SSH dials through the process dial limiter', () => {
  it('queues a dial past SSH_DIALS_PER_ADDRESS, and its timeout starts when it leaves the queue', async () => {
    const { scenario, silent, release } = await holdTheOnlySlot();

    const queuedAt = performance.now();
    const second = rejection(dialSsh({ ...scenario.dialOptions, address: silent.address, timeoutMs: 300 }));
    await expect.poll(() => sshDialLimiter().queued).toBe(1);
    // Queued for longer than its own timeout: it must not have failed, nor connected.
    await expect.poll(() => performance.now() - queuedAt >= 600, { timeout: 2_000 }).toBe(true);
    expect(silent.sockets).toHaveLength(1);

    await release(new Error('done holding'));
    await expect.poll(() => silent.sockets.length).toBe(2);
    expect(await second).toMatchObject({ code: 'SSH_TIMEOUT', stage: 'ssh' });
    expect(sshDialLimiter().inFlight).toBe(0);
  });

  it('ends a queued dial with SSH_ABORTED naming the limits when its caller gives up, without connecting', async () => {
    const { scenario, silent, release } = await holdTheOnlySlot();

    const caller = new AbortController();
    const queued = rejection(dialUnixSocket({ ...scenario.dialOptions, address: silent.address, socketPath: scenario.echo.path, signal: caller.signal }));
    await expect.poll(() => sshDialLimiter().queued).toBe(1);
    caller.abort(new Error('health check round over'));
    const err = await queued;
    expect(err).toMatchObject({ code: 'SSH_ABORTED', stage: 'credentials' });
    expect((err as Error).message).toMatch(/waiting for a dial slot.*SSH_DIALS_PER_ADDRESS=1/);
    expect(sshDialLimiter().queued).toBe(0);
    await release();
    expect(silent.sockets).toHaveLength(1);
  });

  it('lets a dial to a silent host give its process-wide place to a live host after dialSilenceMs', async () => {
    configureSshDials({ maxInFlight: 1, perAddress: 4 });
    const scenario = await startDialScenario(resources);
    const silent = await startSilentServer(resources);
    const dead = rejection(dialSsh({ ...scenario.dialOptions, address: silent.address, timeoutMs: 30_000 }));
    await expect.poll(() => silent.sockets.length).toBe(1);
    const live = dialSsh(scenario.dialOptions);
    expect(sshDialLimiter().queued).toBe(1);
    const connection = await live;
    expect(silent.sockets).toHaveLength(1);
    connection.kill();
    silent.sockets[0]!.destroy();
    expect(await dead).toMatchObject({ code: 'SSH_HANDSHAKE' });
  });

  it('lets a dial whose server has spoken keep its process-wide place until dialStallMs', async () => {
    configureSshDials({ maxInFlight: 1, perAddress: 4 });
    const scenario = await startDialScenario(resources);
    const mute = await startSilentServer(resources, { banner: 'SSH-2.0-OpenSSH_10.0\r\n' });
    const started = performance.now();
    const dead = rejection(dialSsh({ ...scenario.dialOptions, address: mute.address, timeoutMs: 30_000 }));
    await expect.poll(() => mute.sockets.length).toBe(1);
    const connection = await dialSsh(scenario.dialOptions);
    // Parked by the stall rule, not the silence rule (which would have let it through at ~1 s).
    expect(performance.now() - started).toBeGreaterThan(dialSilenceMs + (dialStallMs - dialSilenceMs) * 0.9);
    connection.kill();
    mute.sockets[0]!.destroy();
    expect(await dead).toMatchObject({ code: 'SSH_HANDSHAKE' });
  });

  it('gives the slot back once authenticated, so open connections do not hold up later dials', async () => {
    configureSshDials({ maxInFlight: 1, perAddress: 1 });
    const scenario = await startDialScenario(resources);
    const connections: SshConnection[] = [];
    connections.push(await dialSsh(scenario.dialOptions));
    connections.push(await dialSsh(scenario.dialOptions));
    const socket = await dialUnixSocket({ ...scenario.dialOptions, socketPath: scenario.echo.path });
    expect(sshDialLimiter().inFlight).toBe(0);
    socket.destroy();
    for (const connection of connections) connection.kill();
  });
});
