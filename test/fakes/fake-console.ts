// A serial console device for unit tests, as libvirtd's looks from a client: one holder at a time,
// an open without FORCE while it is held is ConsoleBusyError (ErrOperationFailed), FORCE fails
// the old holder's output with ErrRPC, the guest's output reaches the holder, keystrokes are kept.
// The kvm2 fake (fake-libvirt.ts) and FakeProvider both hand these out.
import { ConsoleBusyError, StreamClosedError, type DuplexStream } from '@/server/libvirt';
import { libvirtError } from './fake-hypervisor';

type Item = { chunk: Buffer } | { end: Error | null };

/** One client's stream on a FakeConsoleDevice. */
class FakeDuplex implements DuplexStream {
  readonly ended: Promise<Error | null>;
  private resolveEnded!: (reason: Error | null) => void;
  private readonly queue: Item[] = [];
  private wake: (() => void) | undefined;
  private reason: Error | null | undefined;

  constructor(private readonly device: FakeConsoleDevice) {
    this.ended = new Promise((resolve) => (this.resolveEnded = resolve));
  }

  get isOver(): boolean {
    return this.reason !== undefined;
  }

  push(item: Item): void {
    if (this.reason !== undefined) return;
    this.queue.push(item);
    if ('end' in item) {
      this.reason = item.end;
      this.resolveEnded(item.end);
    }
    this.wake?.();
  }

  readonly output: AsyncIterable<Buffer> = {
    [Symbol.asyncIterator]: () => ({
      next: async (): Promise<IteratorResult<Buffer>> => {
        while (this.queue.length === 0) await new Promise<void>((resolve) => (this.wake = resolve));
        const item = this.queue.shift() as Item;
        if ('chunk' in item) return { value: item.chunk, done: false };
        if (item.end) throw item.end;
        return { value: undefined, done: true };
      },
    }),
  };

  async send(data: Uint8Array): Promise<void> {
    if (this.reason !== undefined) throw this.reason ?? new StreamClosedError('domainOpenConsole: the stream is closed');
    this.device.input.push(Buffer.from(data));
  }

  async finish(): Promise<void> {
    this.device.release(this);
    this.push({ end: null });
  }

  abort(): void {
    this.device.release(this);
    this.push({ end: null });
  }
}

export class FakeConsoleDevice {
  /** every keystroke sent by any holder, in order */
  readonly input: Buffer[] = [];
  /** opens, in order: whether each was forced */
  readonly opens: boolean[] = [];
  private holder: FakeDuplex | 'elsewhere' | undefined;

  /** What a client of ours gets from DOMAIN_OPEN_CONSOLE. */
  open(force: boolean): DuplexStream {
    this.opens.push(force);
    if (this.holder !== undefined && !force) {
      const cause = libvirtError('ErrOperationFailed', 'operation failed: Active console session exists for this domain', 'domainOpenConsole');
      throw new ConsoleBusyError('domainOpenConsole', cause);
    }
    if (this.holder instanceof FakeDuplex) this.holder.push({ end: libvirtError('ErrRPC', 'rpc error: stream had I/O failure', 'domainOpenConsole') });
    const stream = new FakeDuplex(this);
    this.holder = stream;
    return stream;
  }

  /** Another client (an admin's `virsh console`) takes the device; calling the result lets it go. */
  holdElsewhere(): () => void {
    if (this.holder instanceof FakeDuplex) this.holder.push({ end: libvirtError('ErrRPC', 'rpc error: stream had I/O failure', 'domainOpenConsole') });
    this.holder = 'elsewhere';
    return () => {
      if (this.holder === 'elsewhere') this.holder = undefined;
    };
  }

  get held(): boolean {
    return this.holder !== undefined;
  }

  /** The guest prints: the holder (if one of ours) gets it. */
  print(text: string | Buffer): void {
    if (this.holder instanceof FakeDuplex) this.holder.push({ chunk: Buffer.from(text) });
  }

  /** The domain stopped: the holder's output ends cleanly. */
  stop(): void {
    if (this.holder instanceof FakeDuplex) this.holder.push({ end: null });
    this.holder = undefined;
  }

  release(stream: FakeDuplex): void {
    if (this.holder === stream) this.holder = undefined;
  }
}

/** Devices by instance (domain name or providerID), made on first use. */
export class FakeConsoles {
  private readonly devices = new Map<string, FakeConsoleDevice>();

  of(key: string): FakeConsoleDevice {
    let device = this.devices.get(key);
    if (!device) {
      device = new FakeConsoleDevice();
      this.devices.set(key, device);
    }
    return device;
  }
}
