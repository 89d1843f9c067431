import { afterEach, describe, expect, it } from 'vitest';
import { dialSsh, dialUnixSocket, SshDialError } from '@/server/ssh';
import { closed, Resources, startDialScenario, startSilentServer } from './ssh-harness';

const resources = new Resources();
afterEach(() => resources.cleanup());

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => new Error('expected the dial to fail'),
    (err: unknown) => err,
  );
}

describe('the dial budget', () => {
  it('destroys the socket and rejects with SSH_ABORTED when the caller aborts mid-handshake', async () => {
    const scenario = await startDialScenario(resources);
    const silent = await startSilentServer(resources);
    const controller = new AbortController();
    const dial = rejection(dialSsh({ ...scenario.dialOptions, address: silent.address, timeoutMs: 60_000, signal: controller.signal }));
    await expect.poll(() => silent.sockets.length === 1).toBe(true);

    controller.abort(new Error('operator gave up'));
    const err = await dial;
    expect(err).toBeInstanceOf(SshDialError);
    expect(err).toMatchObject({ code: 'SSH_ABORTED', stage: 'ssh', permanent: false });
    expect((err as Error).cause).toEqual(new Error('operator gave up'));
    await closed(silent.sockets[0]!);
  });

  it('rejects with SSH_TIMEOUT when the handshake outlasts timeoutMs', async () => {
    const scenario = await startDialScenario(resources);
    const silent = await startSilentServer(resources);

    const err = await rejection(dialSsh({ ...scenario.dialOptions, address: silent.address, timeoutMs: 200 }));
    expect(err).toMatchObject({ code: 'SSH_TIMEOUT', stage: 'ssh', permanent: false });
    await closed(silent.sockets[0]!);
  });

  it('does not start when the signal is already aborted', async () => {
    const scenario = await startDialScenario(resources);

    const err = await rejection(dialSsh({ ...scenario.dialOptions, signal: AbortSignal.abort() }));
    expect(err).toMatchObject({ code: 'SSH_ABORTED', stage: 'credentials' });
    expect(scenario.server.sockets).toHaveLength(0);
  });

  it('covers the socket forward too, killing the connection when sshd never answers it', async () => {
    const scenario = await startDialScenario(resources, { streamlocal: 'ignore' });
    // The budget must outlast the handshake, or the dial times out in it (stage 'ssh'): several
    // times what one takes on this machine, which a busy runner can stretch well past 300 ms.
    const startedAt = performance.now();
    await (await dialSsh(scenario.dialOptions)).close();
    const timeoutMs = Math.max(300, Math.ceil(5 * (performance.now() - startedAt)));

    const err = await rejection(dialUnixSocket({ ...scenario.dialOptions, socketPath: scenario.echo.path, timeoutMs }));
    expect(err).toMatchObject({ code: 'SSH_TIMEOUT', stage: 'socket', permanent: false });
    expect(scenario.server.forwardRequests).toEqual([scenario.echo.path]);
    await closed(scenario.server.sockets.at(-1)!);
  });
});
