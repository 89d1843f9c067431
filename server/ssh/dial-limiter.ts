// How many SSH dials (TCP connect + SSH handshake + authentication) may be in flight at once, in
// the whole process and per address. sshd counts every accepted connection that has not
// authenticated yet against MaxStartups (OpenSSH's default 10:30:100: past 10 it drops new ones at
// random), so a process dialling many host entries that share one sshd (or a restart dialling every
// host at once) must not open more than a few at a time to any one address. A dial past either
// limit waits in a queue (first come, first served among those whose address has room) instead of
// failing; a waiting dial still ends when its caller's signal fires. The slot is held only until
// the connection is authenticated: what runs over it afterwards is no longer sshd's startup.
//
// Health checks dial urgently: they go ahead of the other loops' queued dials (event subscriptions,
// the stats sampler), so after a start with many hosts on one sshd every host has its reason first
// (bench:scale: in the first round, interleaved with those dials, 77 of 100 checks ran out of time).
//
// A dial that has stalled gives its process-wide place back but keeps its place at its address:
// it costs this process nothing while it waits out its timeout, and 50 dead hosts must not keep
// the live ones waiting for 10 s (bench:scale measured exactly that before this). Stalled means
// the server has not said a word by `dialSilenceMs` (a host that drops packets, an sshd that
// accepts and stays mute: a live sshd sends its banner at once, before any crypto), or the dial is
// still not through by `dialStallMs`. A server that spoke is doing its part of the handshake, so
// it keeps the place longer: parking it would only let more handshakes run at once.
//
// One limiter per process (SSH_DIALS_MAX, SSH_DIALS_PER_ADDRESS): it lives on globalThis, since
// Next evaluates modules more than once and bundles each route separately.

export interface DialLimits {
  /** dials in flight in the whole process */
  maxInFlight: number;
  /** dials in flight to one address (`host:port`) */
  perAddress: number;
}

/** The defaults: 4 per address keeps one process well under sshd's default MaxStartups (10). */
export const defaultDialLimits: DialLimits = { maxInFlight: 32, perAddress: 4 };

/** How long a dial holds its process-wide place while the server has sent nothing. */
export const dialSilenceMs = 1_000;

/** How long a dial holds its process-wide place in all. */
export const dialStallMs = 2_000;

/** Ends a dial's hold on its slot; calling it again does nothing. */
export type ReleaseDialSlot = () => void;

/** What a granted dial holds. */
export interface DialSlot {
  /** Gives the whole slot back (the dial authenticated or failed); again does nothing. */
  release: ReleaseDialSlot;
  /** Gives back only the process-wide place, keeping the address's (a stalled dial). */
  park(): void;
}

interface Waiter {
  address: string;
  urgent: boolean;
  grant: (slot: DialSlot) => void;
}

export class DialLimiter {
  #limits: DialLimits;
  #inFlight = 0;
  readonly #perAddress = new Map<string, number>();
  readonly #queue: Waiter[] = [];

  constructor(limits: DialLimits = defaultDialLimits) {
    this.#limits = checkLimits(limits);
  }

  get limits(): DialLimits {
    return { ...this.#limits };
  }

  /** New limits apply to the next slot handed out; dials in flight keep theirs. */
  configure(limits: DialLimits): void {
    this.#limits = checkLimits(limits);
    this.#pump();
  }

  /** Dials holding a slot now. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Dials waiting for a slot now. */
  get queued(): number {
    return this.#queue.length;
  }

  /**
   * Resolves with the release once `address` may be dialled; rejects with the signal's reason if
   * it fires first (the dial then never takes a slot). An urgent dial waits behind urgent ones only.
   */
  acquire(address: string, options: { signal?: AbortSignal; urgent?: boolean } = {}): Promise<DialSlot> {
    const { signal, urgent = false } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    // Whoever waits is blocked on a full address (#pump runs on every change), so room now is no queue-jump.
    if (this.#hasRoom(address)) return Promise.resolve(this.#take(address));
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const index = this.#queue.indexOf(waiter);
        if (index >= 0) this.#queue.splice(index, 1);
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        address,
        urgent,
        grant: (slot) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(slot);
        },
      };
      const firstOrdinary = urgent ? this.#queue.findIndex((queued) => !queued.urgent) : -1;
      if (firstOrdinary >= 0) this.#queue.splice(firstOrdinary, 0, waiter);
      else this.#queue.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  #hasRoom(address: string): boolean {
    return this.#inFlight < this.#limits.maxInFlight && (this.#perAddress.get(address) ?? 0) < this.#limits.perAddress;
  }

  #take(address: string): DialSlot {
    this.#inFlight += 1;
    this.#perAddress.set(address, (this.#perAddress.get(address) ?? 0) + 1);
    let counted = true;
    let released = false;
    const park = () => {
      if (!counted) return;
      counted = false;
      this.#inFlight -= 1;
      this.#pump();
    };
    const release = () => {
      if (released) return;
      released = true;
      if (counted) this.#inFlight -= 1;
      counted = false;
      const left = (this.#perAddress.get(address) ?? 1) - 1;
      if (left > 0) this.#perAddress.set(address, left);
      else this.#perAddress.delete(address);
      this.#pump();
    };
    return { release, park };
  }

  // The oldest waiters first; one whose address is full does not hold up those behind it.
  #pump(): void {
    for (let index = 0; index < this.#queue.length && this.#inFlight < this.#limits.maxInFlight;) {
      const waiter = this.#queue[index]!;
      if (!this.#hasRoom(waiter.address)) {
        index += 1;
        continue;
      }
      this.#queue.splice(index, 1);
      waiter.grant(this.#take(waiter.address));
    }
  }
}

/**
 * Parks `slot` once its dial has stalled: `serverBytes()` still 0 after dialSilenceMs, or
 * dialStallMs gone by. Returns the function that stops watching (call it before releasing).
 */
export function parkWhenStalled(slot: DialSlot, serverBytes: () => number): () => void {
  const silence = setTimeout(() => {
    if (serverBytes() === 0) slot.park();
  }, dialSilenceMs);
  const stall = setTimeout(() => slot.park(), dialStallMs);
  return () => {
    clearTimeout(silence);
    clearTimeout(stall);
  };
}

function checkLimits(limits: DialLimits): DialLimits {
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`dial limit ${name} must be a positive integer, got ${String(value)}`);
  }
  return { ...limits };
}

const globalKey = Symbol.for('kvm2-proxies.ssh-dial-limiter');
type GlobalWithLimiter = typeof globalThis & { [globalKey]?: DialLimiter };

/** The process's limiter, which dialSsh and dialUnixSocket take their slots from. */
export function sshDialLimiter(): DialLimiter {
  const holder = globalThis as GlobalWithLimiter;
  holder[globalKey] ??= new DialLimiter();
  return holder[globalKey];
}

/** Sets the process's limits (the runtime's SSH_DIALS_MAX and SSH_DIALS_PER_ADDRESS). */
export function configureSshDials(limits: DialLimits): void {
  sshDialLimiter().configure(limits);
}
