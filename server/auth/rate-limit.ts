// Login throttling, per client: a few free attempts, then exponential backoff (1 s, 2 s, 4 s, ...
// up to a cap) after each further failure, one attempt at a time. An attempt is reserved before
// the password is hashed, so parallel requests cannot all slip through one check; a client whose
// attempts are used up is refused (429 with Retry-After) without its password being checked. There
// is no global ceiling: one client's guessing never locks out the admin on another. Free attempts
// count per full address, since a home LAN shares one IPv6 /64 and neighbours must not lock each
// other out; a much higher ceiling per /64 still stops one host that takes address after address
// in its network. IPv4 counts per address only (a /24 is exactly the neighbours' case, and one
// host rarely holds many IPv4 addresses). A success clears the address, not its /64.
import { isIP } from 'node:net';

export interface LoginLimits {
  /** failures one address may have before backoff starts */
  freeAttempts: number;
  /** failures all the addresses of one IPv6 /64 may have together before backoff starts for the whole /64 */
  networkFreeAttempts: number;
  /** the first wait after the free attempts; doubles with each further failure */
  backoffBaseMs: number;
  backoffCapMs: number;
  /** a client without a failure for this long starts afresh */
  forgetAfterMs: number;
}

export const defaultLoginLimits: LoginLimits = {
  freeAttempts: 5,
  networkFreeAttempts: 50,
  backoffBaseMs: 1_000,
  backoffCapMs: 15 * 60_000,
  forgetAfterMs: 60 * 60_000,
};

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

/** The key one address's attempts count under (IPv6 in one spelling, so `::a` and `0:…:000a` match). */
export function clientKey(address: string): string {
  if (isIP(address) !== 6) return address;
  return expandIpv6(address.toLowerCase())
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':');
}

/** The /64 an IPv6 address belongs to; undefined for anything else. */
export function networkKey(address: string): string | undefined {
  if (isIP(address) !== 6) return undefined;
  return `${clientKey(address).split(':').slice(0, 4).join(':')}::/64`;
}

export class LoginRateLimiter {
  private readonly clients = new Map<string, ClientState>();

  constructor(
    private readonly limits: LoginLimits = defaultLoginLimits,
    private readonly now: () => number = Date.now,
  ) {}

  private backoffMs(failures: number, free: number): number {
    const beyond = failures - free;
    return Math.min(this.limits.backoffCapMs, this.limits.backoffBaseMs * 2 ** Math.min(beyond, 30));
  }

  private stateOf(key: string, nowMs: number): ClientState {
    const known = this.clients.get(key);
    if (known && (known.pending > 0 || nowMs - known.lastFailureMs < this.limits.forgetAfterMs)) return known;
    const fresh: ClientState = { failures: 0, pending: 0, blockedUntilMs: 0, lastFailureMs: 0 };
    this.clients.set(key, fresh);
    return fresh;
  }

  /** The wait `state` imposes before another attempt, 0 when it allows one now. */
  private waitMs(state: ClientState, free: number, nowMs: number): number {
    if (nowMs < state.blockedUntilMs) return state.blockedUntilMs - nowMs;
    // Past the free attempts, one at a time: the outcome of the one in flight sets the next wait.
    if (state.failures + state.pending >= free && state.pending > 0) return this.backoffMs(state.failures + state.pending, free);
    return 0;
  }

  /** Reserves one attempt for `client`, or says how long it must wait. */
  reserve(client: string): Reservation {
    const nowMs = this.now();
    const network = networkKey(client);
    const levels = [
      { key: clientKey(client), free: this.limits.freeAttempts, clearOnSuccess: true },
      ...(network ? [{ key: network, free: this.limits.networkFreeAttempts, clearOnSuccess: false }] : []),
    ].map((level) => ({ ...level, state: this.stateOf(level.key, nowMs) }));
    const waitMs = Math.max(...levels.map((level) => this.waitMs(level.state, level.free, nowMs)));
    if (waitMs > 0) return { retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
    for (const level of levels) level.state.pending += 1;
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      for (const level of levels) level.state.pending -= 1;
      outcome();
      this.prune(this.now());
    };
    return {
      attempt: {
        succeeded: () => settle(() => levels.filter((level) => level.clearOnSuccess).forEach((level) => this.clients.delete(level.key))),
        failed: () =>
          settle(() => {
            const at = this.now();
            for (const { key, free, state } of levels) {
              state.failures += 1;
              state.lastFailureMs = at;
              if (state.failures >= free) state.blockedUntilMs = at + this.backoffMs(state.failures, free);
              this.clients.set(key, state);
            }
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
