// One libvirt RPC connection over a byte Duplex: serials, many calls in flight, keepalive,
// budgets, and the rule that no promise outlives the connection. Generic over the procedure
// table in protocol.ts; streams (upload/download) live in stream.ts.
import type { Duplex } from 'node:stream';
import { armBudget, type Budget } from './budget';
import { CallAbortedError, ConnectionClosedError, ConnectionClosingError, ConnectionKilledError, ProtocolError } from './errors';
import { EventHub, type EventSubscription } from './events';
import { encodeFrame, FrameDecoder, type Packet } from './framing';
import { FrameWriter } from './frame-writer';
import { pongFrame, startKeepalive, type KeepaliveOptions } from './keepalive';
import { KEEPALIVE_PROGRAM, KeepaliveProcedure, MessageType, type MessageTypeValue } from './net-protocol';
import {
  procedures,
  remoteHeader,
  REMOTE_PROGRAM,
  REMOTE_PROTOCOL_VERSION,
  type ArgsOf,
  type CallName,
  type DownloadName,
  type DuplexName,
  type EventName,
  type EventOf,
  type Procedure,
  type RetOf,
  type UploadName,
} from './protocol';
import { decodeReply } from './reply';
import { openDuplexStream, type DuplexOptions, type DuplexStream } from './duplex-stream';
import { downloadStream, uploadStream, type DownloadOptions, type UploadOptions, type UploadResult } from './stream';
import { encodeXdr } from './xdr';

export type { KeepaliveOptions };

export interface CallOptions {
  /** Abandons the call: the connection is killed and every other call on it fails. */
  signal?: AbortSignal;
  /** The call's budget in ms; past it the call is abandoned like an abort. Default: the connection's. */
  timeoutMs?: number;
}

export interface ConnectionOptions {
  /** Budget of calls that name none. Default 30 s. */
  defaultTimeoutMs?: number;
  /** Our own keepalive PINGs (libvirt's keepalive program). Off by default: SSH has its own. */
  keepalive?: KeepaliveOptions;
  /** MESSAGE packets of the remote program that no subscription decodes; ignored when absent. */
  onMessage?: (packet: Packet) => void;
  /**
   * Acknowledge replies at once while more calls are in flight (default on): OpenSSH's sshd leaves
   * Nagle on for forwarded sockets, so with our delayed ACK every pipelined burst would stall for
   * 40 ms. The nudge is a keepalive PONG, which libvirtd takes without answering.
   */
  ackNudge?: boolean;
}

/** Whoever owns a serial (a call or a stream) gets its packets, or the connection's end. */
export interface SerialHandler {
  onPacket(packet: Packet): void;
  fail(err: Error): void;
}

export const DEFAULT_CALL_TIMEOUT_MS = 30_000;

/** Calls that register for events: their reply carries the callbackID. */
export type RegisterName = { [N in CallName]: RetOf<N> extends { callbackID: number } ? N : never }[CallName];
/** Calls that take a callbackID back. */
export type DeregisterName = { [N in CallName]: ArgsOf<N> extends { callbackID: number } ? N : never }[CallName];

export interface SubscribeOptions<R extends RegisterName, N extends EventName> {
  register: R;
  args: ArgsOf<R>;
  deregister: DeregisterName;
  /** The event message the registration produces. */
  event: N;
  /** Called for each event, in wire order, synchronously with its arrival. */
  listener: (message: EventOf<N>) => void;
}

export class RpcConnection {
  readonly defaultTimeoutMs: number;
  /** Resolves (never rejects) with the reason once the connection is over. */
  readonly ended: Promise<Error>;
  private readonly decoder = new FrameDecoder();
  private readonly handlers = new Map<number, SerialHandler>();
  private readonly pausedBy = new Set<object>();
  private readonly writer: FrameWriter;
  private lastSerial = 0;
  private callsInFlight = 0;
  private nudgeScheduled = false;
  private readonly ackNudge: boolean;
  private endReason: Error | null = null;
  private closing = false;
  private lastReceivedAt = Date.now();
  private keepaliveTimer: NodeJS.Timeout | undefined;
  private resolveEnded!: (reason: Error) => void;
  private readonly onMessage: ((packet: Packet) => void) | undefined;
  private readonly events = new EventHub();
  private readonly dispatchByType: Partial<Record<MessageTypeValue, (packet: Packet) => void>> = {
    [MessageType.Reply]: (packet) => this.handlers.get(packet.header.serial)?.onPacket(packet),
    [MessageType.Stream]: (packet) => this.handlers.get(packet.header.serial)?.onPacket(packet),
    [MessageType.Message]: (packet) => this.onEventMessage(packet),
  };

  constructor(
    private readonly transport: Duplex,
    options: ConnectionOptions = {},
  ) {
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.onMessage = options.onMessage;
    this.ackNudge = options.ackNudge ?? true;
    this.ended = new Promise((resolve) => (this.resolveEnded = resolve));
    this.writer = new FrameWriter(transport, () => this.endReason);
    transport.on('data', (chunk: Buffer) => this.onData(chunk));
    transport.on('end', () => this.onTransportGone());
    transport.on('close', () => this.onTransportGone());
    transport.on('error', (err: Error) => this.onTransportGone(err));
    if (options.keepalive) {
      this.keepaliveTimer = startKeepalive(options.keepalive, {
        silentMs: () => Date.now() - this.lastReceivedAt,
        send: (frame) => this.write([frame]).catch(() => undefined),
        kill: (reason) => this.kill(reason),
      });
    }
  }

  /** False once the connection is dead or closing: the next call needs a fresh connection. */
  get alive(): boolean {
    return this.endReason === null && !this.closing;
  }

  call<N extends CallName>(name: N, args: ArgsOf<N>, options: CallOptions = {}): Promise<RetOf<N>> {
    return this.callThen(name, args, options, (ret) => ret);
  }

  /**
   * Registers for events (e.g. connectDomainEventCallbackRegisterAny) and routes the messages
   * naming the returned callbackID to `listener`, until deregistered or the connection ends.
   */
  subscribe<R extends RegisterName, N extends EventName>(subscription: SubscribeOptions<R, N>, options: CallOptions = {}): Promise<EventSubscription> {
    const { register, args, deregister, event, listener } = subscription;
    return this.callThen(register, args, options, (ret) => {
      const { callbackID } = ret as { callbackID: number };
      return this.events.add(callbackID, {
        event,
        listener,
        deregister: async () => {
          // Not the registration's signal: aborting a call kills the connection.
          if (this.alive) await this.call(deregister, { callbackID } as ArgsOf<typeof deregister>, { timeoutMs: options.timeoutMs });
        },
      });
    });
  }

  /**
   * A call whose decoded reply goes through `then` synchronously, before any later packet is
   * dispatched (so a subscription exists before the first event that follows its reply).
   */
  private callThen<N extends CallName, T>(name: N, args: ArgsOf<N>, options: CallOptions, then: (ret: RetOf<N>) => T): Promise<T> {
    const declaration = procedures[name] as Procedure<ArgsOf<N>, RetOf<N>>;
    return new Promise<T>((resolve, reject) => {
      let serial: number;
      let frame: Buffer;
      try {
        this.assertUsable(name, options);
        serial = this.allocateSerial();
        const header = remoteHeader({ procedure: declaration.proc, type: MessageType.Call, serial });
        frame = encodeFrame(header, encodeXdr(declaration.args, args));
      } catch (err) {
        reject(err);
        return;
      }
      const budget = this.startBudget({
        procedure: name,
        serial,
        options,
        reject: (err) => {
          this.callsInFlight--;
          reject(err);
        },
      });
      this.callsInFlight++;
      this.handlers.set(serial, {
        onPacket: (packet) => {
          this.handlers.delete(serial);
          this.callsInFlight--;
          budget.clear();
          try {
            resolve(then(decodeReply(name, declaration.ret, packet)));
          } catch (err) {
            reject(err);
            if (err instanceof ProtocolError) this.terminate(err);
          }
        },
        fail: (err) => {
          this.callsInFlight--;
          budget.clear();
          reject(err);
        },
      });
      this.writer.enqueue(frame);
    });
  }

  /** Sends `source` into an upload stream (e.g. storageVolUpload); see stream.ts for the rules. */
  upload<N extends UploadName>(name: N, args: ArgsOf<N>, options: UploadOptions & { source: AsyncIterable<Uint8Array> }): Promise<UploadResult> {
    return uploadStream(this, { name, args, source: options.source, options });
  }

  /** Reads a download stream (e.g. storageVolDownload); the call is made on the first iteration. */
  download<N extends DownloadName>(name: N, args: ArgsOf<N>, options: DownloadOptions = {}): AsyncIterable<Buffer> {
    return downloadStream(this, { name, args, options });
  }

  /** Opens a two-way stream (domainOpenConsole); see duplex-stream.ts for finish and abort. */
  openDuplex<N extends DuplexName>(name: N, args: ArgsOf<N>, options: DuplexOptions = {}): Promise<DuplexStream> {
    return openDuplexStream(this, { name, args, options });
  }

  /** Ends the connection now: pending calls and streams fail with ConnectionKilledError. */
  kill(cause: Error): void {
    this.terminate(new ConnectionKilledError(cause.message, { cause }));
  }

  /** CONNECT_CLOSE, then the transport goes. Never throws; calls still pending then fail. */
  async close(options: CallOptions = {}): Promise<void> {
    if (!this.alive) return;
    const closed = this.call('connectClose', undefined, { timeoutMs: 5_000, ...options });
    this.closing = true;
    await closed.catch(() => undefined);
    this.terminate(new ConnectionClosingError('connection closed by the client'));
  }

  // ---- used by stream.ts ------------------------------------------------------------------------

  /** Throws the reason the connection cannot take a new call, if any. */
  assertUsable(procedure: string, options: CallOptions): void {
    if (this.endReason) throw this.endReason;
    if (this.closing) throw new ConnectionClosingError(`${procedure}: the connection is closing`);
    if (options.signal?.aborted) throw new CallAbortedError(procedure, { cause: options.signal.reason });
  }

  allocateSerial(): number {
    this.lastSerial = this.lastSerial >= 0xffffffff ? 1 : this.lastSerial + 1;
    return this.lastSerial;
  }

  register(serial: number, handler: SerialHandler): void {
    this.handlers.set(serial, handler);
  }

  unregister(serial: number): void {
    this.handlers.delete(serial);
  }

  /**
   * Arms a call's budget and abort signal. When either fires, the call is detached from its
   * serial, the connection is killed (dead first, then the transport, then every other pending
   * call and stream), and only then is the call itself rejected with its own error.
   */
  startBudget(call: { procedure: string; serial: number; options: CallOptions; reject: (err: Error) => void }): Budget {
    return armBudget({
      procedure: call.procedure,
      timeoutMs: call.options.timeoutMs ?? this.defaultTimeoutMs,
      signal: call.options.signal,
      abandon: (err) => {
        this.handlers.delete(call.serial);
        this.kill(err);
        call.reject(err);
      },
    });
  }

  /** Writes whole frames; resolves when the transport can take more (backpressure for streams). */
  write(buffers: Buffer[]): Promise<void> {
    return this.writer.write(buffers);
  }

  /** Stops reading from the transport while any owner wants it paused (download backpressure). */
  pauseReading(owner: object): void {
    this.pausedBy.add(owner);
    this.transport.pause();
  }

  resumeReading(owner: object): void {
    this.pausedBy.delete(owner);
    if (this.pausedBy.size === 0 && !this.endReason) this.transport.resume();
  }

  /** Ends the connection with `reason`: dead first, then the transport, then every waiter. */
  terminate(reason: Error): void {
    if (this.endReason) return;
    this.endReason = reason;
    clearInterval(this.keepaliveTimer);
    this.transport.destroy();
    const handlers = [...this.handlers.values()];
    this.handlers.clear();
    for (const handler of handlers) handler.fail(reason);
    this.writer.fail(reason);
    this.events.fail(reason);
    this.resolveEnded(reason);
  }

  // ---- inbound ------------------------------------------------------------------------------------

  private onData(chunk: Buffer): void {
    this.lastReceivedAt = Date.now();
    let packets: Packet[];
    try {
      packets = this.decoder.push(chunk);
    } catch (err) {
      this.terminate(err as Error);
      return;
    }
    for (const packet of packets) {
      if (this.endReason) return;
      this.dispatch(packet);
    }
    this.scheduleAckNudge();
  }

  /** One PONG per burst of arrivals, and none when a write of our own carries the ACK anyway. */
  private scheduleAckNudge(): void {
    if (!this.ackNudge || this.nudgeScheduled) return;
    this.nudgeScheduled = true;
    this.writer.wroteSinceData = false;
    setImmediate(() => {
      this.nudgeScheduled = false;
      if (this.callsInFlight > 0 && !this.writer.wroteSinceData && !this.endReason) this.writer.enqueue(pongFrame);
    });
  }

  private dispatch(packet: Packet): void {
    const { program, version, type } = packet.header;
    if (program === KEEPALIVE_PROGRAM) {
      this.onKeepalive(packet);
      return;
    }
    if (program !== REMOTE_PROGRAM || version !== REMOTE_PROTOCOL_VERSION) {
      this.terminate(new ProtocolError(`unexpected program 0x${program.toString(16)} version ${version}`));
      return;
    }
    const handle = this.dispatchByType[type];
    if (!handle) {
      this.terminate(new ProtocolError(`unexpected message type ${type} from the daemon`));
      return;
    }
    handle(packet);
  }

  private onEventMessage(packet: Packet): void {
    if (!this.events.handles(packet.header.procedure)) {
      this.onMessage?.(packet);
      return;
    }
    try {
      this.events.dispatch(packet);
    } catch (err) {
      this.terminate(err as Error);
    }
  }

  private onKeepalive(packet: Packet): void {
    // A PONG needs nothing: its arrival already counted as traffic.
    if (packet.header.procedure === KeepaliveProcedure.Ping) this.write([pongFrame]).catch(() => undefined);
  }

  private onTransportGone(err?: Error): void {
    if (this.endReason) return;
    if (this.closing && !err) {
      this.terminate(new ConnectionClosingError('connection closed by the client'));
      return;
    }
    const midFrame = this.decoder.midFrame;
    const cause = err ?? (midFrame ? new ProtocolError('the peer closed in the middle of a frame') : undefined);
    const what = err ? err.message : midFrame ? 'the peer closed in the middle of a frame' : 'the peer closed the connection';
    this.terminate(new ConnectionClosedError(what, { cause }));
  }
}
