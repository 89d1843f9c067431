import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { dialSsh, dialUnixSocket, libvirtSocketDialer, SshConnectionDeadError, SshDialError } from '@/server/ssh';
import { closed, Resources, startDialScenario } from './ssh-harness';

const resources = new Resources();
afterEach(() => resources.cleanup());

/** Writes `payload` and collects exactly as many bytes back. */
async function roundTrip(socket: Duplex, payload: Buffer): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let received = 0;
  const done = new Promise<void>((resolve, reject) => {
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (received >= payload.length) resolve();
    });
    socket.once('error', reject);
    socket.once('end', () => reject(new Error(`ended after ${received} of ${payload.length} bytes`)));
  });
  socket.write(payload);
  await done;
  socket.removeAllListeners('data');
  return Buffer.concat(chunks);
}

describe('forwarding a remote unix socket over ssh', () => {
  it('carries bytes both ways through the forwarded socket', async () => {
    const scenario = await startDialScenario(resources);
    const socket = await dialUnixSocket({ ...scenario.dialOptions, socketPath: scenario.echo.path });
    resources.add(() => void socket.destroy());

    expect(await roundTrip(socket, Buffer.from('hello libvirt'))).toEqual(Buffer.from('hello libvirt'));
    const large = randomBytes(4 * 1024 * 1024); // several ssh windows: exercises flow control
    expect((await roundTrip(socket, large)).equals(large)).toBe(true);
    expect(scenario.server.forwardRequests).toEqual([scenario.echo.path]);
  });

  it('gives the libvirt client a one-method dialer that opens a fresh connection per dial', async () => {
    const scenario = await startDialScenario(resources);
    const dialer = libvirtSocketDialer({ ...scenario.dialOptions, socketPath: scenario.echo.path });
    const first = await dialer.dial();
    const second = await dialer.dial();
    resources.add(() => void first.destroy());
    resources.add(() => void second.destroy());

    expect(await roundTrip(first, Buffer.from('one'))).toEqual(Buffer.from('one'));
    expect(await roundTrip(second, Buffer.from('two'))).toEqual(Buffer.from('two'));
    expect(scenario.server.sockets).toHaveLength(2);
  });

  it('kills the TCP connection when the forwarded socket is destroyed', async () => {
    const scenario = await startDialScenario(resources);
    const socket = await dialUnixSocket({ ...scenario.dialOptions, socketPath: scenario.echo.path });
    await roundTrip(socket, Buffer.from('x'));

    socket.destroy();
    await closed(scenario.server.sockets[0]!);
    expect(socket.connection.dead?.reason).toBe('killed');
  });

  it('closes the connection gracefully when both sides end the socket', async () => {
    const scenario = await startDialScenario(resources);
    const socket = await dialUnixSocket({ ...scenario.dialOptions, socketPath: scenario.echo.path });
    socket.resume();
    socket.end();
    await once(socket, 'close');

    await closed(scenario.server.sockets[0]!);
    expect(socket.connection.dead?.reason).toBe('closed');
  });

  it('fails the forwarded socket with SSH_DEAD when the connection under it is killed', async () => {
    const scenario = await startDialScenario(resources);
    const connection = await dialSsh(scenario.dialOptions);
    const socket = await connection.forwardUnixSocket(scenario.echo.path);
    const failed = once(socket, 'error');

    connection.kill();
    const [err] = (await failed) as [SshConnectionDeadError];
    expect(err).toBeInstanceOf(SshConnectionDeadError);
    expect(err.code).toBe('SSH_DEAD');
    expect(err.reason).toBe('killed');
    expect(err.permanent).toBe(false);
  });

  it('carries several forwards over one connection, each closable on its own', async () => {
    const scenario = await startDialScenario(resources);
    const connection = await dialSsh(scenario.dialOptions);
    resources.add(() => connection.kill());
    const first = await connection.forwardUnixSocket(scenario.echo.path);
    const second = await connection.forwardUnixSocket(scenario.echo.path);

    first.destroy();
    expect(await roundTrip(second, Buffer.from('still here'))).toEqual(Buffer.from('still here'));
    expect(connection.dead).toBeUndefined();
  });

  it('rejects with a transient socket-stage error when sshd cannot open the socket', async () => {
    const scenario = await startDialScenario(resources);
    const err = await dialUnixSocket({ ...scenario.dialOptions, socketPath: `${scenario.dir}/no-such.sock` }).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(SshDialError);
    expect(err).toMatchObject({ code: 'SSH_SOCKET_REFUSED', stage: 'socket', permanent: false });
    expect((err as Error).message).toContain(`${scenario.dir}/no-such.sock`);
    await closed(scenario.server.sockets[0]!); // the connection dialled for it is not leaked
  });

  it('refuses a forward on a connection that is already dead', async () => {
    const scenario = await startDialScenario(resources);
    const connection = await dialSsh(scenario.dialOptions);
    connection.kill();

    await expect(connection.forwardUnixSocket(scenario.echo.path)).rejects.toMatchObject({ code: 'SSH_DEAD', reason: 'killed' });
  });

  it('ends the socket and closes its connection when the remote peer closes', async () => {
    const scenario = await startDialScenario(resources);
    const socket = await dialUnixSocket({ ...scenario.dialOptions, socketPath: scenario.echo.path });
    await roundTrip(socket, Buffer.from('x'));
    const ended = once(socket, 'end');

    scenario.echo.connections[0]!.destroy();
    await ended;
    await closed(scenario.server.sockets[0]!);
    expect(socket.connection.dead?.reason).toBe('closed');
  });

  it('fails a write stuck on flow control when the peer closes, instead of hanging', async () => {
    const scenario = await startDialScenario(resources);
    const connection = await dialSsh(scenario.dialOptions);
    resources.add(() => connection.kill());
    const socket = await connection.forwardUnixSocket(scenario.echo.path);
    socket.on('error', () => {});
    await roundTrip(socket, Buffer.from('x'));
    const peer = scenario.echo.connections[0]!;
    peer.unpipe();
    peer.pause(); // the remote stops reading: the ssh window fills and our write waits

    const writeResult = new Promise<Error | null | undefined>((resolve) => socket.write(randomBytes(16 * 1024 * 1024), resolve));
    // The peer's buffer is full and it reads no more: the write can only wait from here on.
    await vi.waitFor(() => expect(peer.readableLength).toBeGreaterThanOrEqual(peer.readableHighWaterMark), { timeout: 5_000 });
    peer.destroy();
    expect(await writeResult).toBeInstanceOf(Error);
    expect(connection.dead).toBeUndefined();
  });
});
