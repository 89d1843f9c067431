// A mutex per key: Create and Delete of one domain name, and the download of one base image on
// one host, run one at a time while different keys proceed in parallel. Waiting ends early when
// the caller's signal aborts; the lock is then never taken.
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    try {
      await waitOrAbort(previous, signal);
      return await work();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Whether someone holds `key` (or waits for it); eviction refuses rather than queue behind a Create. */
  held(key: string): boolean {
    return this.tails.has(key);
  }

  /** Keys someone holds or waits for; for tests and diagnostics. */
  get size(): number {
    return this.tails.size;
  }
}

function waitOrAbort(promise: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

/** The key of one base image on one host in the image locks (Create's download, eviction). */
export function imageLockKey(host: string, baseVolume: string): string {
  return `${host}\u0000${baseVolume}`;
}
