// Budgets: no caller puts a deadline on a provider call, so every libvirt call carries its own
// (the spec's *Timeouts and connections* table), applied by one wrapper around the LibvirtAPI.
//
// A call that outlives its budget, or whose signal fires, is abandoned by the RPC client: the
// connection is marked dead first, then its transport is destroyed, which for the SSH forward
// kills the TCP connection (lock-free, so it cannot queue behind a write stuck on a dead host),
// and only then the call rejects. Every other call in flight on that connection rejects with
// ConnectionKilledError, which classify() makes transient; the next call on the host redials.
import type { CallOptions } from '@/server/libvirt';
import type { LibvirtAPI } from './libvirt-api';
import { rpcMethods, type RpcMethod } from './rpc-calls';

const second = 1_000;
const minute = 60 * second;

export const defaultBudgets = {
  /** TCP connect plus SSH handshake plus libvirt connect. */
  dialMs: 10 * second,
  /** Any RPC without a row of its own. */
  rpcMs: 30 * second,
  domainCreateMs: 90 * second,
  /** StorageVolUpload of at most `smallUploadMaxBytes` (the seed, the marker). */
  smallUploadMs: 60 * second,
  smallUploadMaxBytes: 16 * 1024 * 1024,
  /** StorageVolUpload of an image, StorageVolDownload, and a whole image fetch (HTTP request to marker). */
  imageTransferMs: 20 * minute,
  /** Wait for running after DomainCreate, polled every `runningPollMs` (create.ts). */
  runningWaitMs: 15 * second,
  runningPollMs: 500,
  /** The HEAD request of the pool-space precheck. */
  headMs: 30 * second,
  /** The courtesy ConnectClose when a connection is closed. */
  connectCloseMs: 5 * second,
} as const;

export type Budgets = { readonly [K in keyof typeof defaultBudgets]: number };

type BudgetRule<M extends RpcMethod> = (options: Parameters<LibvirtAPI[M]>[0], budgets: Budgets) => number;

// Calls whose budget is not the ordinary RPC's. An upload of unknown length (0 means "to the
// end") is taken for an image.
const budgetRules: { [M in RpcMethod]?: BudgetRule<M> } = {
  domainCreate: (_options, budgets) => budgets.domainCreateMs,
  storageVolUpload: (options, budgets) => {
    const length = options.length ?? 0;
    return length > 0 && length <= budgets.smallUploadMaxBytes ? budgets.smallUploadMs : budgets.imageTransferMs;
  },
  storageVolDownload: (_options, budgets) => budgets.imageTransferMs,
};

/** The budget in ms of one call of `method` with `options`. */
export function budgetFor<M extends RpcMethod>(method: M, options: Parameters<LibvirtAPI[M]>[0], budgets: Budgets = defaultBudgets): number {
  const rule = budgetRules[method] as BudgetRule<M> | undefined;
  return rule ? rule(options, budgets) : budgets.rpcMs;
}

type AnyMethod = (options?: CallOptions) => unknown;

/**
 * `api` with every call's budget set: the table's, or the caller's own `timeoutMs` when that is
 * shorter. The caller's signal passes through, so it can still end the call earlier. Every call
 * takes one options object, which is where the budget goes.
 */
export function withBudgets(api: LibvirtAPI, budgets: Budgets = defaultBudgets): LibvirtAPI {
  const wrapped: Partial<Record<RpcMethod, AnyMethod>> = {};
  for (const method of rpcMethods) {
    const target = api[method] as AnyMethod;
    wrapped[method] = (options: CallOptions = {}) => {
      const budget = budgetFor(method, options as Parameters<LibvirtAPI[typeof method]>[0], budgets);
      return target.call(api, { ...options, timeoutMs: Math.min(options.timeoutMs ?? Infinity, budget) });
    };
  }
  return wrapped as LibvirtAPI;
}
