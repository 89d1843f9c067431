// Refused credentials are remembered per host, so nothing redials them blindly. A host whose sshd
// refused the key, or whose host key is missing from known_hosts or changed, refuses again on
// every dial until someone changes a file or the host; yet the stats sampler (every 10 s), the
// event subscription (up to every 30 s) and the health check would each keep logging in: about 9
// failed SSH logins a minute, which fail2ban's stock sshd jail answers by banning the server, and
// from then on the host reads Unreachable, hiding the real reason.
//
// So a permanent dial failure (the spec's class: SSH authentication refused, a host key unknown or
// changed, a key or known_hosts file that does not parse) latches: every later dial to that host
// fails at once with the remembered error, until
// - the key file or the known_hosts file changes (inode, size, mtime or ctime: a rotated Secret
//   swaps a symlink, an edit changes size or mtime; read with two stat calls per dial), or
// - the health check, which may dial a latched host once `retryMs` after the refusal, then after
//   twice as long each time up to `maxRetryMs` (fail2ban's stock jail bans after 5 failures in 10
//   minutes: a fixed minute would still get the server banned), gets through.
// The remembered error stays the cause, so the health check keeps reporting Unauthorized. One
// RefusedDials serves a provider entry across config reloads (Kvm2SharedState), so a reload does
// not cost another failed login per refusing host.
import { stat } from 'node:fs/promises';
import { ErrPermanent } from '@/server/providers/errors';
import { SshError } from '@/server/ssh';
import { findInCauses } from './errors';

/** How long after a refusal the health check may dial the host again: a minute, doubling each time. */
export const defaultRefusedRetryMs = 60_000;
/** The longest wait between the health check's tries at a refusing host. */
export const defaultRefusedMaxRetryMs = 15 * 60_000;

/** What the credential files look like now; a different stamp means someone changed one. */
export async function credentialStamp(files: ReadonlyArray<string | undefined>): Promise<string> {
  const parts = await Promise.all(
    files.map(async (file) => {
      if (file === undefined) return '-';
      try {
        const facts = await stat(file);
        return `${facts.dev}:${facts.ino}:${facts.size}:${facts.mtimeMs}:${facts.ctimeMs}`;
      } catch (err) {
        return `unreadable:${(err as NodeJS.ErrnoException).code ?? 'error'}`;
      }
    }),
  );
  return parts.join('|');
}

/** The SSH error that makes a dial failure permanent, if it is one. */
export function refusalIn(err: unknown): SshError | undefined {
  return findInCauses(err, (candidate): candidate is SshError => candidate instanceof SshError && candidate.permanent);
}

interface Refusal {
  error: SshError;
  stamp: string;
  /** when the refusal was first seen (ms since the epoch) */
  since: number;
  /** when a dial was last let through to the host */
  lastDial: number;
  /** the health check's tries since the refusal (each doubles the wait before the next) */
  retries: number;
}

export interface RefusedDialsOptions {
  /** Defaults to Date.now. */
  now?: () => number;
  /** Defaults to defaultRefusedRetryMs. */
  retryMs?: number;
  /** Defaults to defaultRefusedMaxRetryMs. */
  maxRetryMs?: number;
}

/** Before a dial: `skip` is the error to fail with instead of dialling. */
export interface DialGate {
  skip?: ErrPermanent;
  /** a refusal was forgotten because a credential file changed */
  lifted?: boolean;
}

export class RefusedDials {
  private readonly refusals = new Map<string, Refusal>();
  private readonly now: () => number;
  private readonly retryMs: number;
  private readonly maxRetryMs: number;

  constructor(options: RefusedDialsOptions = {}) {
    this.now = options.now ?? Date.now;
    this.retryMs = options.retryMs ?? defaultRefusedRetryMs;
    this.maxRetryMs = options.maxRetryMs ?? defaultRefusedMaxRetryMs;
  }

  /** The wait before the health check's next try at a refusing host. */
  private waitAfter(refusal: Refusal): number {
    return Math.min(this.retryMs * 2 ** refusal.retries, Math.max(this.retryMs, this.maxRetryMs));
  }

  /**
   * Whether to dial `host`, whose credential files read `stamp` now (credentialStamp). Synchronous,
   * so two health checks at once let one dial through, not two.
   */
  gate(host: string, options: { stamp: string; healthCheck?: boolean }): DialGate {
    const refusal = this.refusals.get(host);
    if (!refusal) return {};
    if (refusal.stamp !== options.stamp) {
      this.refusals.delete(host);
      return { lifted: true };
    }
    const now = this.now();
    const wait = this.waitAfter(refusal);
    if (options.healthCheck && now - refusal.lastDial >= wait) {
      refusal.lastDial = now;
      refusal.retries += 1;
      return {};
    }
    return { skip: skipped(host, refusal, wait) };
  }

  /** After a failed dial that began with `stamp`: latches when the failure is permanent. True when newly latched. */
  record(host: string, err: unknown, stamp: string): boolean {
    const error = refusalIn(err);
    if (!error) return false;
    const known = this.refusals.get(host);
    const now = this.now();
    this.refusals.set(host, { error, stamp, since: known?.since ?? now, lastDial: known?.lastDial ?? now, retries: known?.retries ?? 0 });
    return known === undefined;
  }

  /** After a dial that got through. True when a refusal was latched. */
  clear(host: string): boolean {
    return this.refusals.delete(host);
  }
}

function skipped(host: string, refusal: Refusal, waitMs: number): ErrPermanent {
  const since = new Date(refusal.since).toISOString();
  const minutes = Math.max(1, Math.round(waitMs / 60_000));
  return new ErrPermanent(
    `${refusal.error.message} (host ${host} is not dialled again since ${since}: the server retries once the key or known_hosts file changes, ` +
      `or when the health check, next in at most ${minutes === 1 ? 'a minute' : `${minutes} minutes`} after its last try, gets through)`,
    { cause: refusal.error },
  );
}
