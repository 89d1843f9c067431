// The leadership fence at the connection: a replica that no longer leads dials no hypervisor and
// sends it no RPC, whichever code path asks (a loop's pass, an aborted download's cleanup, a
// redial after the pooled connection died). Fencing the provider's methods alone is not enough:
// work already inside a method (a download being cleaned up after its signal fired at the
// step-down) goes on calling libvirt after the lease is gone.
//
// Two views of one backend share its connections:
// - `leader`: nothing at all once not leading, neither a dial nor any call. The contract's
//   operations, image downloads, health checks, event subscriptions and stats use it.
// - `reads`: what every replica may do on a hypervisor, leading or not (README, *Several
//   replicas*): the host inventory, placement previews, a Proxy's diagnosis and the consoles of
//   pages watching on this replica. It dials and sends the calls `rpcAccess` marks `read`;
//   a `write` (anything that changes what libvirt stores) is refused once not leading.
//
// The check runs before each call is sent; a call already sent when the lease ran out finishes
// (README, *Failover*: the worst-case overlap).
import { ErrTransient } from '@/server/providers/errors';
import type { FreshConnection, HostBackend, LibvirtAPI } from './libvirt-api';
import { rpcAccessOf, rpcMethods, rpcStreamsDown, type RpcMethod } from './rpc-calls';

export type RpcAccess = 'read' | 'write';

/**
 * Whether each call changes what libvirt stores (`write`) or only looks (`read`): its procedure
 * row's `access`. Event registrations live and die with their connection and store nothing; a
 * console stream reaches the guest's serial port, so a page watching one on this replica keeps
 * it across a change of leader.
 */
export const rpcAccess: Record<RpcMethod, RpcAccess> = Object.fromEntries(rpcMethods.map((method) => [method, rpcAccessOf(method)])) as Record<
  RpcMethod,
  RpcAccess
>;

/** Transient: the new leader does what is needed; classified like any provider error. */
export class NotLeadingError extends ErrTransient {
  constructor(what: string) {
    super(`this replica no longer leads: ${what} was not done (the leader's next pass does what is needed)`);
    this.name = 'NotLeadingError';
  }
}

export interface FenceOptions {
  /** true while this replica leads with a fresh lease (asked before every dial and call) */
  mayAct: () => boolean;
  /** `leader`: nothing once not leading; `reads`: dials and read calls still go (see above) */
  view: 'leader' | 'reads';
}

type AnyMethod = (...args: unknown[]) => unknown;

function refusal(method: RpcMethod, host: string): unknown {
  const err = new NotLeadingError(`libvirt call ${method} on host ${host}`);
  if (rpcStreamsDown(method)) {
    return (async function* refused(): AsyncGenerator<never> {
      throw err;
    })();
  }
  return Promise.reject(err);
}

class FencedBackend implements HostBackend {
  /** one wrapper per connection, so per-connection caches (virt types) keep working */
  private readonly wrapped = new WeakMap<LibvirtAPI, LibvirtAPI>();

  constructor(
    private readonly inner: HostBackend,
    private readonly options: FenceOptions,
  ) {}

  async pooled(host: string, callOptions?: Parameters<HostBackend['pooled']>[1]): Promise<LibvirtAPI> {
    this.checkDial(host);
    return this.wrap(await this.inner.pooled(host, callOptions), host);
  }

  async fresh(host: string, callOptions?: Parameters<HostBackend['fresh']>[1]): Promise<FreshConnection> {
    this.checkDial(host);
    const connection = await this.inner.fresh(host, callOptions);
    return { api: this.wrap(connection.api, host), close: () => connection.close() };
  }

  /** Closing is always allowed: it only lets go. */
  closeAll(): Promise<void> {
    return this.inner.closeAll();
  }

  private checkDial(host: string): void {
    if (this.options.view === 'leader' && !this.options.mayAct()) throw new NotLeadingError(`connecting to host ${host}`);
  }

  private allowed(method: RpcMethod): boolean {
    if (this.options.view === 'reads' && rpcAccess[method] === 'read') return true;
    return this.options.mayAct();
  }

  private wrap(api: LibvirtAPI, host: string): LibvirtAPI {
    const known = this.wrapped.get(api);
    if (known) return known;
    const fenced: Partial<Record<RpcMethod, AnyMethod>> = {};
    for (const method of rpcMethods) {
      const target = api[method] as AnyMethod;
      fenced[method] = (...args: unknown[]) => (this.allowed(method) ? target.apply(api, args) : refusal(method, host));
    }
    this.wrapped.set(api, fenced as LibvirtAPI);
    return fenced as LibvirtAPI;
  }
}

/** `backend` as `options.view` may use it; both views share its connections. */
export function fencedBackend(backend: HostBackend, options: FenceOptions): HostBackend {
  return new FencedBackend(backend, options);
}
