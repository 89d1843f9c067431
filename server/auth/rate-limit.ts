// Login throttling: failed attempts are counted per client address in a fixed window; past the
// limit, that client is refused (429 with Retry-After) without its password even being checked,
// so guessing costs a window per few tries. A global ceiling over all clients bounds guessing by
// a client that varies its claimed address. A successful login clears its client's count.
export interface LoginLimits {
  /** failed attempts one client may make per window */
  perClient: number;
  /** failed attempts all clients together may make per window */
  global: number;
  windowMs: number;
}

export const defaultLoginLimits: LoginLimits = { perClient: 5, global: 100, windowMs: 60_000 };

interface Window {
  startedMs: number;
  failures: number;
}

export class LoginRateLimiter {
  private readonly clients = new Map<string, Window>();
  private globalWindow: Window = { startedMs: 0, failures: 0 };

  constructor(
    private readonly limits: LoginLimits = defaultLoginLimits,
    private readonly now: () => number = Date.now,
  ) {}

  private current(window: Window | undefined, nowMs: number): Window {
    return window && nowMs - window.startedMs < this.limits.windowMs ? window : { startedMs: nowMs, failures: 0 };
  }

  /** Seconds the client must wait, or 0 when it may try now. */
  retryAfterSeconds(client: string): number {
    const nowMs = this.now();
    const waits: number[] = [];
    const own = this.current(this.clients.get(client), nowMs);
    if (own.failures >= this.limits.perClient) waits.push(own.startedMs + this.limits.windowMs - nowMs);
    this.globalWindow = this.current(this.globalWindow, nowMs);
    if (this.globalWindow.failures >= this.limits.global) waits.push(this.globalWindow.startedMs + this.limits.windowMs - nowMs);
    return waits.length === 0 ? 0 : Math.max(1, Math.ceil(Math.max(...waits) / 1000));
  }

  recordFailure(client: string): void {
    const nowMs = this.now();
    const own = this.current(this.clients.get(client), nowMs);
    own.failures += 1;
    this.clients.set(client, own);
    this.globalWindow = this.current(this.globalWindow, nowMs);
    this.globalWindow.failures += 1;
    this.prune(nowMs);
  }

  recordSuccess(client: string): void {
    this.clients.delete(client);
  }

  /** Forgets windows that ended, so addresses seen once do not accumulate. */
  private prune(nowMs: number): void {
    if (this.clients.size < 1024) return;
    for (const [client, window] of this.clients) {
      if (nowMs - window.startedMs >= this.limits.windowMs) this.clients.delete(client);
    }
  }
}
