// libvirt streams (virnetprotocol.x, VIR_NET_STREAM). Upload: CALL, REPLY, STREAM CONTINUE data
// packets, an empty STREAM OK to finish, the daemon's confirming STREAM OK. Download: CALL, REPLY,
// STREAM CONTINUE packets from the daemon ending with an empty one (EOF), our STREAM OK finish
// and its confirmation. An error from the daemon is a REPLY or STREAM with status ERROR.
import type { CallOptions, RpcConnection } from './client';
import { EncodeError, ProtocolError, StreamOverflowError, UploadSourceError } from './errors';
import { encodeFrame, encodeHeader, type Packet } from './framing';
import { Inbox } from './inbox';
import { LEGACY_PAYLOAD_MAX, MessageStatus, MessageType, PAYLOAD_MAX, type MessageStatusValue } from './net-protocol';
import { procedures, remoteHeader, type ArgsOf, type DownloadName, type DuplexName, type UploadName } from './protocol';
import { decodeReply, libvirtErrorOf } from './reply';
import { encodeXdr, type Shape } from './xdr';
import { xdrVoid } from './xdr-shapes';

export interface UploadOptions extends CallOptions {
  /** Payload bytes per STREAM packet. Default 256 KiB, as libvirtd sends; at most 16 MiB - 24. */
  chunkSize?: number;
  /**
   * What a failing source does to the stream. 'finish' (default, the spec's out-of-band rule):
   * end it cleanly, keep what arrived, throw UploadSourceError afterwards. 'abort': send STREAM
   * ERROR so libvirtd abandons the transfer, then throw UploadSourceError.
   */
  onSourceError?: 'finish' | 'abort';
}

export interface UploadResult {
  bytesSent: number;
}

export interface DownloadOptions extends CallOptions {
  /** Queued bytes past which the connection stops reading until the consumer catches up. Default 8 MiB. */
  highWaterMark?: number;
}

export type StreamHost = Pick<
  RpcConnection,
  'alive' | 'assertUsable' | 'allocateSerial' | 'register' | 'unregister' | 'startBudget' | 'write' | 'pauseReading' | 'resumeReading' | 'terminate'
>;

const DEFAULT_DOWNLOAD_HIGH_WATER = 8 * 1024 * 1024;
const PACKETS_PER_YIELD = 64;

export interface OpenedStream {
  serial: number;
  inbox: Inbox;
  /** Data packets libvirtd sent before the REPLY (its stream event can beat the reply). */
  early: Packet[];
  /** Awaits `work` unless the stream fails first; the stream's own failure wins over a side effect of it. */
  settle<T>(work: Promise<T>): Promise<T>;
  packet(status: MessageStatusValue, payload?: Uint8Array): Buffer;
  /** The open is over: its budget no longer applies (a console lives as long as it is used). */
  endBudget(): void;
  close(): void;
}

/** What a packet held before the REPLY costs: its payload and its frame (so empty packets count). */
const FRAME_OVERHEAD = 28;
/** An upload expects no data from the daemon; it holds at most this much before its reply. */
const UPLOAD_EARLY_LIMIT = 1024 * 1024;

/**
 * Sends the CALL and waits for its REPLY; the stream's serial then carries the data. Data that
 * comes before the REPLY is held (up to `earlyLimitBytes`, past which the stream is abandoned with
 * StreamOverflowError: reading cannot pause while the reply is still to come).
 */
export async function openStream<N extends UploadName | DownloadName | DuplexName>(
  host: StreamHost,
  call: { name: N; args: ArgsOf<N>; options: CallOptions; inbox: Inbox; earlyLimitBytes: number },
): Promise<OpenedStream> {
  const { name, inbox, options, earlyLimitBytes } = call;
  const procedure = procedures[name].proc;
  host.assertUsable(name, options);
  const callPayload = encodeXdr(procedures[name].args as Shape<ArgsOf<N>>, call.args);
  const serial = host.allocateSerial();
  let earlyBytes = 0;
  let replied = false;
  host.register(serial, {
    onPacket: (packet) => {
      // What follows the REPLY is the stream's own consumer's to bound (it can pause reading).
      if (packet.header.type === MessageType.Reply) replied = true;
      else if (!replied && packet.header.type === MessageType.Stream) {
        earlyBytes += packet.payload.length + FRAME_OVERHEAD;
        if (earlyBytes > earlyLimitBytes) return inbox.fail(new StreamOverflowError(name, earlyLimitBytes));
      }
      inbox.push(packet);
    },
    fail: (err) => inbox.fail(err),
  });
  const budget = host.startBudget({ procedure: name, serial, options, reject: (err) => inbox.fail(err) });
  const stream: OpenedStream = {
    serial,
    inbox,
    early: [],
    settle: (work) => inbox.settle(work),
    packet: (status, payload) => encodeFrame(remoteHeader({ procedure, type: MessageType.Stream, serial, status }), payload),
    endBudget: () => budget.clear(),
    close: () => {
      budget.clear();
      host.unregister(serial);
    },
  };
  try {
    await inbox.settle(host.write([encodeFrame(remoteHeader({ procedure, type: MessageType.Call, serial }), callPayload)]));
    let packet = await inbox.next();
    while (packet.header.type === MessageType.Stream && packet.header.status === MessageStatus.Continue) {
      stream.early.push(packet);
      packet = await inbox.next();
    }
    decodeReply(name, xdrVoid, packet);
  } catch (err) {
    stream.close();
    if (err instanceof ProtocolError) host.terminate(err);
    // Tell libvirtd to drop the stream; its reply and further data reach a serial nobody owns.
    if (err instanceof StreamOverflowError && host.alive) host.write([stream.packet(MessageStatus.Error)]).catch(() => undefined);
    throw err;
  }
  return stream;
}

/** The daemon's answer to our STREAM OK (finish) or STREAM ERROR (abort): an empty STREAM OK, or an error. */
function expectConfirmation(name: string, packet: Packet): void {
  const { type, status } = packet.header;
  if (status === MessageStatus.Error) throw libvirtErrorOf(name, packet);
  if (type !== MessageType.Stream || status !== MessageStatus.Ok) {
    throw new ProtocolError(`${name}: expected the stream's confirmation, got type ${type} status ${status}`);
  }
}

function toBuffer(chunk: unknown): Buffer {
  if (!(chunk instanceof Uint8Array)) throw new TypeError('upload source yielded something other than bytes');
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

type SourceStep = { done: true } | { done: false; chunk: Buffer } | { done: true; error: unknown };

/** Reads one chunk; a source that throws (or yields non-bytes) becomes a step, never a rejection. */
async function readSource(iterator: AsyncIterator<Uint8Array>): Promise<SourceStep> {
  try {
    const result = await iterator.next();
    return result.done ? { done: true } : { done: false, chunk: toBuffer(result.value) };
  } catch (error) {
    return { done: true, error };
  }
}

/**
 * Upload with backpressure: the next chunk is read from the source only after the previous
 * packet was taken by the transport, so memory stays flat whatever the size. A source error
 * never breaks the stream; it is reported after the stream has ended (UploadSourceError).
 */
export async function uploadStream<N extends UploadName>(
  host: StreamHost,
  upload: { name: N; args: ArgsOf<N>; source: AsyncIterable<Uint8Array>; options: UploadOptions },
): Promise<UploadResult> {
  const { name, options } = upload;
  const chunkSize = options.chunkSize ?? LEGACY_PAYLOAD_MAX;
  if (!Number.isInteger(chunkSize) || chunkSize < 1 || chunkSize > PAYLOAD_MAX) {
    throw new EncodeError(`chunkSize must be an integer in 1..${PAYLOAD_MAX}, got ${chunkSize}`);
  }
  const inbox = new Inbox();
  const stream = await openStream(host, { name, args: upload.args, options, inbox, earlyLimitBytes: UPLOAD_EARLY_LIMIT });
  const iterator = upload.source[Symbol.asyncIterator]();
  let bytesSent = 0;
  let sourceError: { error: unknown } | null = null;
  let exhausted = false;
  let packetsSinceYield = 0;
  // Past the REPLY, the daemon speaks on this serial only to report an error.
  host.register(stream.serial, {
    onPacket: (packet) =>
      inbox.fail(packet.header.status === MessageStatus.Error ? libvirtErrorOf(name, packet) : new ProtocolError(`${name}: unexpected packet while uploading`)),
    fail: (err) => inbox.fail(err),
  });
  try {
    for (;;) {
      const step = await stream.settle(readSource(iterator));
      if (step.done) {
        exhausted = true;
        if ('error' in step) sourceError = { error: step.error };
        break;
      }
      for (let offset = 0; offset < step.chunk.length; offset += chunkSize) {
        const piece = step.chunk.subarray(offset, offset + chunkSize);
        const header = remoteHeader({ procedure: procedures[name].proc, type: MessageType.Stream, serial: stream.serial, status: MessageStatus.Continue });
        await stream.settle(host.write([encodeHeader(header, piece.length), piece]));
        bytesSent += piece.length;
        // A transport that never pushes back (in-memory) would let a synchronous source spin in
        // microtasks forever; give timers and I/O (budgets, aborts, errors) a turn now and then.
        if (++packetsSinceYield >= PACKETS_PER_YIELD) {
          packetsSinceYield = 0;
          await stream.settle(new Promise((resolve) => setImmediate(resolve)));
        }
      }
    }
    host.register(stream.serial, { onPacket: (packet) => inbox.push(packet), fail: (err) => inbox.fail(err) });
    const abort = sourceError !== null && options.onSourceError === 'abort';
    await stream.settle(host.write([stream.packet(abort ? MessageStatus.Error : MessageStatus.Ok)]));
    expectConfirmation(name, await inbox.next());
  } catch (err) {
    if (err instanceof ProtocolError) host.terminate(err);
    throw err;
  } finally {
    stream.close();
    if (!exhausted) iterator.return?.().catch(() => undefined);
  }
  if (sourceError) throw new UploadSourceError(bytesSent, { cause: sourceError.error });
  return { bytesSent };
}

/**
 * Download as an async iterable of payload buffers. While more than `highWaterMark` bytes wait
 * for the consumer, the connection stops reading (TCP backpressure to libvirtd, which sends the
 * next packet only once the previous one left). Leaving the loop early aborts the stream.
 */
export async function* downloadStream<N extends DownloadName>(
  host: StreamHost,
  download: { name: N; args: ArgsOf<N>; options: DownloadOptions },
): AsyncGenerator<Buffer, void, undefined> {
  const { name, options } = download;
  const owner = {};
  const highWaterMark = options.highWaterMark ?? DEFAULT_DOWNLOAD_HIGH_WATER;
  const inbox = new Inbox({ highWaterMark, onFull: () => host.pauseReading(owner), onDrained: () => host.resumeReading(owner) });
  // What the consumer may leave queued is also what may come before the reply.
  const stream = await openStream(host, { name, args: download.args, options, inbox, earlyLimitBytes: highWaterMark });
  let settled = false;
  const nextPacket = (): Promise<Packet> => {
    const early = stream.early.shift();
    return early ? Promise.resolve(early) : inbox.next();
  };
  try {
    for (;;) {
      const packet = await nextPacket();
      const { type, status } = packet.header;
      if (type === MessageType.Stream && status === MessageStatus.Continue && packet.payload.length > 0) {
        yield packet.payload;
        continue;
      }
      settled = true;
      if (status === MessageStatus.Error) throw libvirtErrorOf(name, packet);
      // End of data: libvirtd sends an empty STREAM CONTINUE ("no payload means end of the
      // stream", virnetclientstream.c); an empty STREAM OK is accepted too.
      if (type !== MessageType.Stream || packet.payload.length > 0) {
        throw new ProtocolError(`${name}: unexpected packet type ${type} status ${status} in a download`);
      }
      await stream.settle(host.write([stream.packet(MessageStatus.Ok)]));
      expectConfirmation(name, await inbox.next());
      return;
    }
  } catch (err) {
    if (err instanceof ProtocolError) host.terminate(err);
    throw err;
  } finally {
    stream.close();
    host.resumeReading(owner);
    // The consumer stopped early: tell libvirtd to drop the stream. Its remaining packets and
    // the confirmation arrive for a serial nobody owns any more, and are ignored.
    if (!settled && !inbox.failed && host.alive) host.write([stream.packet(MessageStatus.Error)]).catch(() => undefined);
  }
}
