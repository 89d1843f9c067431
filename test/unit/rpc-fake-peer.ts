// A scripted libvirtd for unit tests: an in-memory Duplex for the client, and on the other side
// a peer that decodes what the client wrote and answers with whatever bytes a test scripts.
import { Duplex } from 'node:stream';
import { encodeFrame, FrameDecoder, type Packet } from '@/server/libvirt/framing';
import { MessageStatus, MessageType, remoteError, type MessageHeader } from '@/server/libvirt/net-protocol';
import { REMOTE_PROGRAM, REMOTE_PROTOCOL_VERSION } from '@/server/libvirt/protocol';
import { encodeXdr, type Shape } from '@/server/libvirt/xdr';

export interface PeerOptions {
  /** The client side's writable high-water mark (small values make backpressure visible). */
  highWaterMark?: number;
  /** Drop STREAM data packets and raw chunks instead of keeping them (for memory tests). */
  discardStreamData?: boolean;
}

export class FakePeer {
  /** Give this to RpcConnection. */
  readonly transport: Duplex;
  /** Every chunk the client wrote, as written. */
  readonly written: Buffer[] = [];
  /** Payload bytes of the STREAM data packets dropped under discardStreamData. */
  discardedBytes = 0;
  destroyed = false;
  private readonly discardStreamData: boolean;
  private readonly decoder = new FrameDecoder();
  private readonly received: Packet[] = [];
  private waiters: Array<(packet: Packet) => void> = [];
  private holding = false;
  private held: Array<() => void> = [];

  constructor(options: PeerOptions = {}) {
    const peer = this;
    this.discardStreamData = options.discardStreamData ?? false;
    this.transport = new Duplex({
      writableHighWaterMark: options.highWaterMark ?? 16 * 1024,
      read() {},
      write(chunk: Buffer, _encoding, callback) {
        peer.accept(chunk);
        if (peer.holding) peer.held.push(() => callback());
        else callback();
      },
      destroy(err, callback) {
        peer.destroyed = true;
        callback(err);
      },
    });
  }

  private accept(chunk: Buffer): void {
    if (!this.discardStreamData) this.written.push(chunk);
    for (const packet of this.decoder.push(chunk)) {
      if (this.discardStreamData && packet.header.type === MessageType.Stream && packet.header.status === MessageStatus.Continue) {
        this.discardedBytes += packet.payload.length;
        continue;
      }
      const waiter = this.waiters.shift();
      if (waiter) waiter(packet);
      else this.received.push(packet);
    }
  }

  /** The next packet the client sent. */
  nextPacket(): Promise<Packet> {
    const packet = this.received.shift();
    if (packet) return Promise.resolve(packet);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Packets received and not yet taken with nextPacket(). */
  get backlog(): number {
    return this.received.length;
  }

  /** Stop completing the client's writes (a link that does not drain). */
  holdWrites(): void {
    this.holding = true;
  }

  releaseWrites(): void {
    this.holding = false;
    const held = this.held;
    this.held = [];
    for (const release of held) release();
  }

  sendRaw(bytes: Buffer): void {
    this.transport.push(bytes);
  }

  send(header: Partial<MessageHeader> & Pick<MessageHeader, 'procedure' | 'type' | 'serial'>, payload?: Buffer): void {
    const full: MessageHeader = {
      program: REMOTE_PROGRAM,
      version: REMOTE_PROTOCOL_VERSION,
      status: MessageStatus.Ok,
      ...header,
    };
    this.sendRaw(encodeFrame(full, payload));
  }

  /** A REPLY OK to `call` carrying `value` encoded with `shape`. */
  reply<T>(call: Packet, shape: Shape<T>, value: T): void {
    this.send({ procedure: call.header.procedure, type: MessageType.Reply, serial: call.header.serial }, encodeXdr(shape, value));
  }

  /** A REPLY (or STREAM) with status ERROR to `call`. */
  replyError(call: Packet, error: { code: number; message: string; domain?: number; type?: 1 | 3 }): void {
    this.send(
      {
        procedure: call.header.procedure,
        type: error.type ?? MessageType.Reply,
        serial: call.header.serial,
        status: MessageStatus.Error,
      },
      encodeXdr(remoteError, {
        code: error.code,
        domain: error.domain ?? 10,
        message: error.message,
        level: 2,
        dom: null,
        str1: error.message,
        str2: null,
        str3: null,
        int1: -1,
        int2: -1,
        net: null,
      }),
    );
  }

  /** A STREAM packet on `call`'s serial. */
  stream(call: Packet, status: 0 | 1 | 2, payload?: Buffer): void {
    this.send({ procedure: call.header.procedure, type: MessageType.Stream, serial: call.header.serial, status }, payload);
  }

  /** The peer closes its end cleanly. */
  end(): void {
    this.transport.push(null);
  }
}
