import { once } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { dialSsh, SshConnectionDeadError } from '@/server/ssh';
import { keepaliveClock, runKeepaliveRounds } from '@/test/support/keepalive-rounds';
import { Resources, startDialScenario, startStallableRelay } from './ssh-harness';

const resources = new Resources();
afterEach(() => {
  vi.useRealTimers();
  return resources.cleanup();
});

// Fast, yet a reply may be late by far more than a busy runner's pause (the server shares this
// process) before the healthy link, still opening its forward, is declared dead.
const fastKeepalive = { keepaliveIntervalMs: 50, keepaliveTimeoutMs: 600 };

describe('ssh keepalive', () => {
  it('declares a stalled link dead and fails what runs over it', async () => {
    const scenario = await startDialScenario(resources);
    const relay = await startStallableRelay(resources, scenario.server.port);
    await appendKnownHost(scenario, relay.address, scenario.hostKey.publicFields);
    const connection = await dialSsh({ ...scenario.dialOptions, address: relay.address, ...fastKeepalive });
    const socket = await connection.forwardUnixSocket(scenario.echo.path);
    const socketError = once(socket, 'error');
    const died = new Promise<SshConnectionDeadError>((resolve) => connection.onDead(resolve));

    relay.stall();
    const death = await died;
    expect(death.reason).toBe('keepalive-timeout');
    expect(death.code).toBe('SSH_DEAD');
    const [err] = (await socketError) as [SshConnectionDeadError];
    expect(err.reason).toBe('keepalive-timeout');
  });

  it('keeps a healthy link alive across many keepalive rounds', async () => {
    const scenario = await startDialScenario(resources);
    // The keepalive's clock is faked (the link stays real): the test runs 40 rounds of 20 ms, past
    // the 500 ms reply timeout, one at a time. Replies must be seen: without them the first
    // request's timeout would declare the link dead.
    vi.useFakeTimers(keepaliveClock);
    const connection = await dialSsh({ ...scenario.dialOptions, keepaliveIntervalMs: 20, keepaliveTimeoutMs: 500 });
    resources.add(() => connection.kill());
    await runKeepaliveRounds({ rounds: 40, intervalMs: 20 });
    vi.useRealTimers();
    expect(connection.dead).toBeUndefined();
    const socket = await connection.forwardUnixSocket(scenario.echo.path);
    socket.on('error', () => {}); // the cleanup kills the connection under it
    socket.write('ping');
    const [reply] = (await once(socket, 'data')) as [Buffer];
    expect(reply.toString()).toBe('ping');
  });

  it('tells late listeners that the connection already died', async () => {
    const scenario = await startDialScenario(resources);
    const connection = await dialSsh(scenario.dialOptions);
    connection.kill();

    const err = await new Promise<SshConnectionDeadError>((resolve) => connection.onDead(resolve));
    expect(err.reason).toBe('killed');
  });
});

async function appendKnownHost(scenario: { knownHostsFile: string }, address: string, publicFields: string): Promise<void> {
  const { appendFile } = await import('node:fs/promises');
  const [host, port] = address.split(':');
  await appendFile(scenario.knownHostsFile, `[${host}]:${port} ${publicFields}\n`);
}
