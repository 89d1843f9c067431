// A stream both ways at once, as libvirt's console gives (REMOTE_PROC_DOMAIN_OPEN_CONSOLE): our
// STREAM CONTINUE packets carry input (keystrokes), the daemon's carry output. How it ends:
// - the daemon's empty STREAM CONTINUE is end of output (the domain stopped): we answer with
//   STREAM OK (finish) and the daemon confirms with an empty STREAM OK;
// - finish(): our STREAM OK, then the daemon's confirmation;
// - abort(): our STREAM ERROR; libvirtd lets the device go at once and answers with an error
//   nobody waits for (the serial is forgotten first);
// - STREAM ERROR from the daemon (e.g. another client took the console with FORCE: ErrRPC
//   "stream had I/O failure") or the connection's end: the output throws that error.
// Only the open carries the call budget: a console lives as long as someone uses it.
import type { CallOptions } from './client';
import { CallTimeoutError, ProtocolError, StreamClosedError } from './errors';
import { encodeHeader, type Packet } from './framing';
import { Inbox } from './inbox';
import { LEGACY_PAYLOAD_MAX, MessageStatus, MessageType } from './net-protocol';
import { procedures, remoteHeader, type ArgsOf, type DuplexName } from './protocol';
import { libvirtErrorOf } from './reply';
import { openStream, type StreamHost } from './stream';

export interface DuplexOptions extends CallOptions {
  /** Output bytes queued unread past which the connection stops reading. Default 1 MiB. */
  highWaterMark?: number;
}

export interface DuplexStream {
  /** The daemon's output in order; ends when it ends the stream, throws the stream's error. Read it once. */
  readonly output: AsyncIterable<Buffer>;
  /** Sends input; resolves once the transport took it. Throws StreamClosedError once the stream is over. */
  send(data: Uint8Array): Promise<void>;
  /** Ends the stream cleanly and waits for the daemon's confirmation (within `timeoutMs`, default 30 s). */
  finish(options?: { timeoutMs?: number }): Promise<void>;
  /** Abandons the stream at once; the daemon releases the device. */
  abort(): void;
  /** Settles when the stream is over: null after a clean end, the error otherwise. */
  readonly ended: Promise<Error | null>;
}

const DEFAULT_HIGH_WATER = 1024 * 1024;
const DEFAULT_FINISH_TIMEOUT_MS = 30_000;

export async function openDuplexStream<N extends DuplexName>(
  host: StreamHost,
  open: { name: N; args: ArgsOf<N>; options: DuplexOptions },
): Promise<DuplexStream> {
  const { name, options } = open;
  const procedure = procedures[name].proc;
  const owner = {};
  const highWaterMark = options.highWaterMark ?? DEFAULT_HIGH_WATER;
  const output = new Inbox({ highWaterMark, onFull: () => host.pauseReading(owner), onDrained: () => host.resumeReading(owner) });
  // Until the REPLY, the open's own packets (and early output, as much as output may queue) go through this inbox.
  const opening = new Inbox();
  const stream = await openStream(host, { name, args: open.args, options, inbox: opening, earlyLimitBytes: highWaterMark });
  stream.endBudget();

  let reason: Error | null | undefined;
  let finishing = false;
  let resolveEnded!: (reason: Error | null) => void;
  const ended = new Promise<Error | null>((resolve) => (resolveEnded = resolve));
  const END_OF_OUTPUT = Buffer.alloc(0);

  const end = (why: Error | null) => {
    if (reason !== undefined) return;
    reason = why;
    stream.close();
    host.resumeReading(owner);
    if (why) output.fail(why);
    else output.push({ header: remoteHeader({ procedure, type: MessageType.Stream, serial: stream.serial }), payload: END_OF_OUTPUT });
    resolveEnded(why);
  };
  const sendFinish = () => {
    if (finishing || reason !== undefined) return;
    finishing = true;
    host.write([stream.packet(MessageStatus.Ok)]).catch((err: Error) => end(err));
  };
  const onPacket = (packet: Packet) => {
    if (reason !== undefined) return;
    const { type, status } = packet.header;
    if (status === MessageStatus.Error) return end(libvirtErrorOf(name, packet));
    if (type === MessageType.Stream && status === MessageStatus.Continue) {
      if (packet.payload.length > 0) return output.push(packet);
      // End of output: the daemon keeps the stream until we finish it.
      output.push({ header: packet.header, payload: END_OF_OUTPUT });
      return sendFinish();
    }
    if (type === MessageType.Stream && status === MessageStatus.Ok && finishing) return end(null);
    const err = new ProtocolError(`${name}: unexpected packet type ${type} status ${status} on a stream`);
    end(err);
    host.terminate(err);
  };
  host.register(stream.serial, { onPacket, fail: (err) => end(err) });
  // Output that came before the REPLY, or right behind it before this handler took the serial,
  // and a connection that ended in between.
  for (const packet of [...stream.early, ...opening.drain()]) onPacket(packet);
  if (opening.failed) end(opening.failed);

  async function* readOutput(): AsyncGenerator<Buffer, void, undefined> {
    for (;;) {
      const packet = await output.next();
      if (packet.payload === END_OF_OUTPUT) return;
      yield packet.payload;
    }
  }

  return {
    output: readOutput(),
    ended,
    async send(input) {
      if (reason !== undefined || finishing) throw reason ?? new StreamClosedError(`${name}: the stream is closed`);
      const data = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
      for (let offset = 0; offset < data.length; offset += LEGACY_PAYLOAD_MAX) {
        const piece = data.subarray(offset, offset + LEGACY_PAYLOAD_MAX);
        const header = remoteHeader({ procedure, type: MessageType.Stream, serial: stream.serial, status: MessageStatus.Continue });
        await host.write([encodeHeader(header, piece.length), piece]);
      }
    },
    async finish(finishOptions = {}) {
      sendFinish();
      const timeoutMs = finishOptions.timeoutMs ?? DEFAULT_FINISH_TIMEOUT_MS;
      const timer = setTimeout(() => end(new CallTimeoutError(`${name} finish`, timeoutMs)), timeoutMs);
      const why = await ended;
      clearTimeout(timer);
      if (why) throw why;
    },
    abort() {
      if (reason !== undefined) return;
      if (host.alive) host.write([stream.packet(MessageStatus.Error)]).catch(() => undefined);
      end(null);
    },
  };
}
