// How the provider reaches its hosts: one pooled SSH + libvirt connection per host, dialled
// lazily by the first call that needs it and shared by every operation on that host (the RPC
// client multiplexes calls); and fresh connections of their own for the two callers that must
// not share a fate with the pool (image uploads and health checks).
//
// - Concurrent callers wait for one dial and share its result; each caller's waiting ends with
//   its own signal, while the dial goes on for the others.
// - A connection that died (a call abandoned on it, SSH keepalive unanswered, the socket gone)
//   reports alive = false; the next caller redials.
// - Credentials are read on every dial (server/ssh), so a rotated key needs no restart.
// - A dial refused for good (key refused, host key unknown or changed) is remembered per host:
//   later dials fail at once until a credential file changes, and only the health check retries,
//   at most once a minute (refused-dials.ts), so the server is not banned by fail2ban.
// - Each dial is a `kvm2.dial` span and ends with `libvirt host connected` or
//   `libvirt host connect failed` (address, user, duration, error, stage).
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { Duplex } from 'node:stream';
import { LibvirtClient } from '@/server/libvirt';
import { ErrPermanent, ErrTransient } from '@/server/providers/errors';
import { dialUnixSocket, SshDialError, type SshDialStage } from '@/server/ssh';
import { bindOnce, type Logger } from '@/server/telemetry/logger';
import { tracer } from '@/server/telemetry/tracing';
import { defaultBudgets, withBudgets, type Budgets } from './backend';
import { classify } from './errors';
import type { Kvm2Host, Kvm2Settings } from './kvm2';
import type { FreshConnection, FreshOptions, HostBackend, LibvirtAPI } from './libvirt-api';
import { observe } from './observe';
import { credentialStamp, RefusedDials } from './refused-dials';
import { errorMessage } from '@/lib/error-message';

/**
 * Opens a byte stream to the host's libvirt socket within `timeoutMs`. The SSH dial may wait for
 * a slot of the process's dial limiter first (health checks `urgent`, ahead of the other dials);
 * `onStart` says when the dial (and its time) starts.
 */
export type TransportDialer = (host: Kvm2Host, options: { signal?: AbortSignal; timeoutMs: number; onStart?: () => void; urgent?: boolean }) => Promise<Duplex>;

export interface HostBackendOptions {
  providerName: string;
  settings: Kvm2Settings;
  /** The provider's logger; `provider` is added when it does not carry it, `host` per host. */
  logger: Logger;
  /** Defaults to the spec's table; tests shorten it. */
  budgets?: Budgets;
  /** Defaults to the SSH forward of `hosts[].socket`; tests pass an in-memory transport. */
  dialTransport?: TransportDialer;
  /**
   * The hosts that refused the credentials, shared by the entry's successive backends (config
   * reloads); a set of this backend's own by default.
   */
  refusedDials?: RefusedDials;
}

type Purpose = 'pooled' | 'fresh';

interface Connection {
  client: LibvirtClient;
  api: LibvirtAPI;
}

interface PoolSlot {
  current?: Connection;
  dialing?: Promise<Connection>;
}

const libvirtUri = 'qemu:///system';

function sshTransportDialer(settings: Kvm2Settings): TransportDialer {
  return (host, { signal, timeoutMs, onStart, urgent }) =>
    dialUnixSocket({
      onStart,
      urgent,
      address: host.address,
      user: host.user,
      keyFile: settings.sshKeyFile,
      knownHostsFile: settings.knownHostsFile,
      insecureIgnoreHostKey: settings.insecureIgnoreHostKey,
      socketPath: host.socket,
      signal,
      timeoutMs,
    });
}

/** Resolves like `promise`, or rejects transiently as soon as `signal` fires (the promise goes on). */
function waitUnlessAborted<T>(promise: Promise<T>, options: { signal?: AbortSignal; what: string }): Promise<T> {
  const { signal, what } = options;
  if (!signal) return promise;
  const abandoned = () => new ErrTransient(`${what}: the caller gave up waiting`, { cause: signal.reason });
  if (signal.aborted) return Promise.reject(abandoned());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abandoned());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

class Kvm2HostBackend implements HostBackend {
  private readonly slots = new Map<string, PoolSlot>();
  private readonly budgets: Budgets;
  private readonly dialTransport: TransportDialer;
  private readonly logger: Logger;
  private readonly hostLoggers = new Map<string, Logger>();
  private readonly refused: RefusedDials;

  constructor(private readonly options: HostBackendOptions) {
    this.budgets = options.budgets ?? defaultBudgets;
    this.dialTransport = options.dialTransport ?? sshTransportDialer(options.settings);
    this.logger = bindOnce(options.logger, { provider: options.providerName });
    this.refused = options.refusedDials ?? new RefusedDials();
  }

  async pooled(hostName: string, options: { signal?: AbortSignal } = {}): Promise<LibvirtAPI> {
    const host = this.host(hostName);
    const slot = this.slot(hostName);
    if (slot.current?.client.alive) return slot.current.api;
    slot.dialing ??= this.dialPooled(host, slot);
    const connection = await waitUnlessAborted(slot.dialing, { signal: options.signal, what: `connecting to host ${host.name}` });
    return connection.api;
  }

  async fresh(hostName: string, options: FreshOptions = {}): Promise<FreshConnection> {
    const host = this.host(hostName);
    const { client, api } = await this.dial(host, { purpose: 'fresh', signal: options.signal, healthCheck: options.healthCheck });
    return { api, close: () => client.close({ timeoutMs: this.budgets.connectCloseMs }).catch(() => undefined) };
  }

  async closeAll(): Promise<void> {
    const slots = [...this.slots.values()];
    await Promise.all(
      slots.map(async (slot) => {
        const dialing = slot.dialing?.catch(() => undefined);
        const current = slot.current;
        slot.current = undefined;
        await current?.client.close({ timeoutMs: this.budgets.connectCloseMs });
        const late = await dialing;
        if (late && slot.current === late) slot.current = undefined;
        await late?.client.close({ timeoutMs: this.budgets.connectCloseMs });
      }),
    );
  }

  private host(name: string): Kvm2Host {
    const found = this.options.settings.hosts.find((candidate) => candidate.name === name);
    if (!found) throw new ErrPermanent(`host ${JSON.stringify(name)} is not in kvm2.hosts`);
    return found;
  }

  private slot(name: string): PoolSlot {
    let slot = this.slots.get(name);
    if (!slot) {
      slot = {};
      this.slots.set(name, slot);
    }
    return slot;
  }

  private hostLogger(host: Kvm2Host): Logger {
    let logger = this.hostLoggers.get(host.name);
    if (!logger) {
      logger = this.logger.child({ host: host.name });
      this.hostLoggers.set(host.name, logger);
    }
    return logger;
  }

  // Not bound to any caller's signal: the callers waiting for it each give up on their own.
  private async dialPooled(host: Kvm2Host, slot: PoolSlot): Promise<Connection> {
    try {
      const connection = await this.dial(host, { purpose: 'pooled' });
      slot.current = connection;
      void connection.client.rpc.ended.then((reason) => {
        if (slot.current === connection) {
          this.hostLogger(host).debug({ connection: 'pooled', error: reason.message }, 'libvirt host connection lost');
        }
      });
      return connection;
    } finally {
      slot.dialing = undefined;
    }
  }

  /** A dial, unless the host refused the credentials and nothing changed since (refused-dials.ts). */
  private async dial(host: Kvm2Host, options: { purpose: Purpose; signal?: AbortSignal; healthCheck?: boolean }): Promise<Connection> {
    const logger = this.hostLogger(host);
    const { sshKeyFile, knownHostsFile } = this.options.settings;
    // Taken before the dial: a file replaced while it runs shows as a change next time.
    const stamp = await credentialStamp([sshKeyFile, knownHostsFile]);
    const gate = this.refused.gate(host.name, { stamp, healthCheck: options.healthCheck });
    if (gate.lifted) logger.info({ address: host.address, user: host.user }, 'libvirt host credentials changed: dialling again');
    if (gate.skip) throw gate.skip;
    try {
      const connection = await this.dialTraced(host, options);
      if (this.refused.clear(host.name)) logger.info({ address: host.address, user: host.user }, 'libvirt host accepted the credentials again');
      return connection;
    } catch (err) {
      if (this.refused.record(host.name, err, stamp)) {
        logger.warn(
          { address: host.address, user: host.user, error: errorMessage(err) },
          'libvirt host refused the credentials: no more dials until the key or known_hosts file changes or the health check (at most once a minute) gets through',
        );
      }
      throw err;
    }
  }

  private dialTraced(host: Kvm2Host, options: { purpose: Purpose; signal?: AbortSignal; healthCheck?: boolean }): Promise<Connection> {
    const attributes = { 'kvm2.host': host.name, 'kvm2.address': host.address, 'kvm2.user': host.user };
    return tracer().startActiveSpan('kvm2.dial', { kind: SpanKind.CLIENT, attributes }, async (span) => {
      const started = performance.now();
      const logger = this.hostLogger(host);
      const fields = () => ({
        connection: options.purpose,
        address: host.address,
        user: host.user,
        duration: Math.round(performance.now() - started),
      });
      let stage: SshDialStage = 'credentials';
      try {
        const client = await this.open(host, { signal: options.signal, urgent: options.healthCheck, onTransport: () => (stage = 'socket') });
        logger.debug(fields(), 'libvirt host connected');
        const api = observe(withBudgets(client, this.budgets), { host: host.name, logger });
        return { client, api };
      } catch (err) {
        if (err instanceof SshDialError) stage = err.stage;
        const message = errorMessage(err);
        // The file at fault goes to the log only: the message reaches API answers.
        const file = err instanceof SshDialError && err.file !== undefined ? { file: err.file } : {};
        logger.debug({ ...fields(), error: message, stage, ...file }, 'libvirt host connect failed');
        span.recordException(err instanceof Error ? err : new Error(message));
        span.setStatus({ code: SpanStatusCode.ERROR, message });
        throw classify(err, { op: 'dial' });
      } finally {
        span.end();
      }
    });
  }

  /** The SSH forward within the dial budget, then the libvirt handshake within what is left of it. */
  private async open(host: Kvm2Host, options: { signal?: AbortSignal; urgent?: boolean; onTransport: () => void }): Promise<LibvirtClient> {
    // The dial budget counts from when the SSH dial leaves the limiter's queue, not from the call.
    let started = performance.now();
    const onStart = () => (started = performance.now());
    const transport = await this.dialTransport(host, { signal: options.signal, timeoutMs: this.budgets.dialMs, onStart, urgent: options.urgent });
    options.onTransport();
    let handedOver = false;
    const dialer = {
      dial: async () => {
        handedOver = true;
        return transport;
      },
    };
    try {
      const timeoutMs = Math.max(1, this.budgets.dialMs - (performance.now() - started));
      return await LibvirtClient.open({ dialer, uri: libvirtUri, timeoutMs, signal: options.signal });
    } catch (err) {
      // The handshake owns the transport once handed over (and destroys it on failure).
      if (!handedOver) transport.destroy();
      throw err;
    }
  }
}

/** The backend a kvm2 provider reaches its hosts through. */
export function createHostBackend(options: HostBackendOptions): HostBackend {
  return new Kvm2HostBackend(options);
}
