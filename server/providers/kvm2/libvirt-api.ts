// The seam the kvm2 provider's logic depends on: every libvirt call of the RPC client, in its own
// signatures (one options object each, derived from the procedure table). Production hands out
// LibvirtClient objects wrapped by backend.ts (budgets), fence.ts (leadership) and observe.ts (a
// span and a `libvirt call` log line per RPC); unit tests hand out the in-memory fake in
// test/fakes/fake-libvirt.ts, which libvirt-fake-matches-table.test.ts checks against the table.
import type { CallOptions, LibvirtCalls } from '@/server/libvirt';

export type LibvirtAPI = LibvirtCalls;

/** A connection handed to one caller for its own use (image uploads, health checks). */
export interface FreshConnection {
  api: LibvirtAPI;
  /** Courtesy CONNECT_CLOSE within its budget, then the SSH connection goes. Never throws. */
  close(): Promise<void>;
}

export interface FreshOptions extends CallOptions {
  /**
   * The health check's dial: the only one let through to a host that refused the credentials,
   * at most once a minute (refused-dials.ts).
   */
  healthCheck?: boolean;
}

/**
 * How the provider's logic reaches a host. `pooled` shares one lazily dialled connection per host
 * (concurrent callers wait for one dial; waiting ends with their signal); `fresh` dials a
 * connection of the caller's own. Every call on either carries its budget from backend.ts.
 */
export interface HostBackend {
  pooled(host: string, options?: CallOptions): Promise<LibvirtAPI>;
  fresh(host: string, options?: FreshOptions): Promise<FreshConnection>;
  /** Closes every pooled connection (config reload, shutdown). */
  closeAll(): Promise<void>;
}
