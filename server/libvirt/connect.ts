// Dial + libvirt handshake: AUTH_LIST, AUTH_POLKIT when the daemon asks for it, CONNECT_OPEN.
import type { Duplex } from 'node:stream';
import { RpcConnection, type ConnectionOptions } from './client';
import { AuthUnsupportedError, CallAbortedError, CallTimeoutError } from './errors';
import { AuthType } from './protocol';
import type { Dialer } from './transport';

export interface OpenOptions extends ConnectionOptions {
  dialer: Dialer;
  /** Default qemu:///system. */
  uri?: string;
  /** VIR_CONNECT_RO. */
  readOnly?: boolean;
  /** Budget of dial + handshake together. Default 30 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

const VIR_CONNECT_RO = 1;
const DEFAULT_OPEN_TIMEOUT_MS = 30_000;

const authNames: Record<number, string> = { [AuthType.None]: 'none', [AuthType.Sasl]: 'sasl', [AuthType.Polkit]: 'polkit' };

/** What each scheme we speak needs before CONNECT_OPEN. */
const authSteps: Record<number, (conn: RpcConnection, budget: StepBudget) => Promise<void>> = {
  [AuthType.None]: async () => undefined,
  [AuthType.Polkit]: async (conn, budget) => {
    // A user polkit refuses gets a LibvirtError here (ErrAuthFailed / ErrAccessDenied).
    await conn.call('authPolkit', undefined, budget.next());
  },
};

interface StepBudget {
  next(): { timeoutMs: number; signal?: AbortSignal };
}

function deadlineBudget(timeoutMs: number, signal: AbortSignal | undefined): StepBudget {
  const deadline = Date.now() + timeoutMs;
  return { next: () => ({ timeoutMs: Math.max(1, deadline - Date.now()), signal }) };
}

/** Dials within the budget; the dialer is told to give up, and a transport that arrives late is destroyed. */
async function dialWithin(dialer: Dialer, options: { timeoutMs: number; signal?: AbortSignal }): Promise<Duplex> {
  const { timeoutMs, signal } = options;
  if (signal?.aborted) throw new CallAbortedError('dial', { cause: signal.reason });
  const giveUp = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const onAbort = () => giveUp.abort(new CallAbortedError('dial', { cause: signal?.reason }));
  const gaveUp = new Promise<never>((_, reject) => {
    giveUp.signal.addEventListener('abort', () => reject(giveUp.signal.reason), { once: true });
    timer = setTimeout(() => giveUp.abort(new CallTimeoutError('dial', timeoutMs)), timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  const dialing = dialer.dial(giveUp.signal);
  try {
    return await Promise.race([dialing, gaveUp]);
  } catch (err) {
    dialing.then((late) => late.destroy()).catch(() => undefined);
    throw giveUp.signal.aborted ? giveUp.signal.reason : err;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

/** Dials and opens a libvirt connection, ready for calls. */
export async function openConnection(options: OpenOptions): Promise<RpcConnection> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_OPEN_TIMEOUT_MS;
  const budget = deadlineBudget(timeoutMs, options.signal);
  const transport = await dialWithin(options.dialer, budget.next());
  const conn = new RpcConnection(transport, options);
  try {
    const { types } = await conn.call('authList', undefined, budget.next());
    // Like libvirt's remote driver: no list means no auth; otherwise the first scheme we speak.
    const scheme = types.length === 0 ? AuthType.None : types.find((type) => authSteps[type] !== undefined);
    if (scheme === undefined) throw new AuthUnsupportedError(types.map((type) => authNames[type] ?? `#${type}`));
    await authSteps[scheme]!(conn, budget);
    await conn.call('connectOpen', { name: options.uri ?? 'qemu:///system', flags: options.readOnly ? VIR_CONNECT_RO : 0 }, budget.next());
    return conn;
  } catch (err) {
    conn.terminate(err as Error);
    throw err;
  }
}
