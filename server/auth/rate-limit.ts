// Login throttling, per client: a few free attempts, then exponential backoff (1 s, 2 s, 4 s, ...
// up to a cap) after each further failure, one attempt at a time. An attempt is reserved before
// the password is hashed, so parallel requests cannot all slip through one check; a client whose
// attempts are used up is refused (429 with Retry-After) without its password being checked. There
// is no global ceiling: one client's guessing never locks out the admin on another. IPv6 clients
// count per /64, since one host can take any address in its network. A success clears the client.
import { isIP } from 'node:net';

export interface LoginLimits {
  /** failures a client may have before backoff starts */
  freeAttempts: number;
  /** the first wait after the free attempts; doubles with each further failure */
  backoffBaseMs: number;
  backoffCapMs: number;
  /** a client without a failure for this long starts afresh */
  forgetAfterMs: number;
}

export const defaultLoginLimits: LoginLimits = { freeAttempts: 5, backoffBaseMs: 1_000, backoffCapMs: 15 * 60_000, forgetAfterMs: 60 * 60_000 };

interface ClientState {
  failures: number;
  /** attempts reserved and not yet settled */
  pending: number;
  blockedUntilMs: number;
  lastFailureMs: number;
}

/** A reserved attempt: settle it exactly once, with the outcome of the password check. */
export interface LoginAttempt {
  succeeded(): void;
  failed(): void;
}

export type Reservation = { attempt: LoginAttempt } | { retryAfterSeconds: number };

function expandIpv6(address: string): string[] {
  const [head = '', tail] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  return [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
}

/** The key one client's attempts count under: the address, or its /64 for IPv6. */
export function clientKey(address: string): string {
  if (isIP(address) !== 6) return address;
  return `${expandIpv6(address.toLowerCase())
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

export class LoginRateLimiter {
  private readonly clients = new Map<string, ClientState>();

  constructor(
    private readonly limits: LoginLimits = defaultLoginLimits,
    private readonly now: () => number = Date.now,
  ) {}

  private backoffMs(failures: number): number {
    const beyond = failures - this.limits.freeAttempts;
    return Math.min(this.limits.backoffCapMs, this.limits.backoffBaseMs * 2 ** Math.min(beyond, 30));
  }

  private stateOf(key: string, nowMs: number): ClientState {
    const known = this.clients.get(key);
    if (known && (known.pending > 0 || nowMs - known.lastFailureMs < this.limits.forgetAfterMs)) return known;
    const fresh: ClientState = { failures: 0, pending: 0, blockedUntilMs: 0, lastFailureMs: 0 };
    this.clients.set(key, fresh);
    return fresh;
  }

  /** Reserves one attempt for `client`, or says how long it must wait. */
  reserve(client: string): Reservation {
    const nowMs = this.now();
    const key = clientKey(client);
    const state = this.stateOf(key, nowMs);
    if (nowMs < state.blockedUntilMs) return { retryAfterSeconds: Math.max(1, Math.ceil((state.blockedUntilMs - nowMs) / 1000)) };
    // Past the free attempts, one at a time: the outcome of the one in flight sets the next wait.
    if (state.failures + state.pending >= this.limits.freeAttempts && state.pending > 0) {
      return { retryAfterSeconds: Math.max(1, Math.ceil(this.backoffMs(state.failures + state.pending) / 1000)) };
    }
    state.pending += 1;
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      state.pending -= 1;
      outcome();
      this.prune(this.now());
    };
    return {
      attempt: {
        succeeded: () => settle(() => this.clients.delete(key)),
        failed: () =>
          settle(() => {
            const at = this.now();
            state.failures += 1;
            state.lastFailureMs = at;
            if (state.failures >= this.limits.freeAttempts) state.blockedUntilMs = at + this.backoffMs(state.failures);
            this.clients.set(key, state);
          }),
      },
    };
  }

  /** Forgets clients that have been quiet long enough, so addresses seen once do not accumulate. */
  private prune(nowMs: number): void {
    if (this.clients.size < 1024) return;
    for (const [key, state] of this.clients) {
      if (state.pending === 0 && nowMs - state.lastFailureMs >= this.limits.forgetAfterMs && nowMs >= state.blockedUntilMs) this.clients.delete(key);
    }
  }
}
