// The health check's reason table over a fake host backend: every reason the spec names, where
// in the sequence it is reached, the details gathered before the break, and the round-level
// behaviour (config order, concurrency, fresh connections only, the `kvm2 host checked` line).
import { describe, expect, it } from 'vitest';
import { AuthUnsupportedError, CallAbortedError, CallTimeoutError, ConnectionClosedError, type StoragePoolInfo } from '@/server/libvirt';
import { checkHosts, checkReason, probeHost, type CheckReason } from '@/server/providers/kvm2/check';
import { classify } from '@/server/providers/kvm2/errors';
import type { FreshConnection, HostBackend, LibvirtAPI } from '@/server/providers/kvm2/libvirt-api';
import { HostKeyError, SshDialError, type SshDialStage, type SshErrorCode } from '@/server/ssh';
import { createLogger } from '@/server/telemetry/logger';
import { libvirtError } from '@/test/fakes/fake-hypervisor';
import { kvm2Settings } from '@/test/fakes/kvm2-settings';
import { captureLogs } from '@/test/support/log-capture';

const settings = kvm2Settings({
  hosts: [
    { name: 'beelink', address: 'beelink:22', user: 'novakj', bridge: 'br0', pool: 'vms' },
    { name: 'nuc', address: 'nuc:2222', user: 'novakj', bridge: 'br0' },
  ],
});
const beelink = settings.hosts[0]!;

// What the real dial throws: the raw error classified once, with the raw error as cause.
const dialFailure = (err: unknown) => classify(err, { op: 'dial' });
const sshDial = (code: SshErrorCode, stage: SshDialStage) => dialFailure(new SshDialError({ code, stage, message: `ssh dial: ${code}` }));

const poolInfo = (state: number): StoragePoolInfo => ({ state, capacity: 200 * 1024 ** 3, allocation: 50 * 1024 ** 3, available: 150 * 1024 ** 3 });

type Script = Partial<{ [M in keyof LibvirtAPI]: (signal?: AbortSignal) => Promise<unknown> }>;

/** A dial or RPC that fails with a fresh `error()` each time it is called. */
const throws = (error: () => unknown) => async (): Promise<never> => {
  throw error();
};

/** Waits for `signal` and rejects the way an abandoned RPC does. */
const hangsUntilAborted = (procedure: string) => (signal?: AbortSignal) =>
  new Promise((_, reject) => signal?.addEventListener('abort', () => reject(new CallAbortedError(procedure, { cause: signal.reason }))));

function fakeApi(script: Script): LibvirtAPI {
  const answers: Script = {
    connectGetLibVersion: async () => 9_000_000,
    connectGetHostname: async () => 'beelink.lan',
    storagePoolLookupByName: async () => ({ name: 'vms', uuid: Buffer.alloc(16) }),
    storagePoolGetInfo: async () => poolInfo(2),
    ...script,
  };
  const method =
    (name: keyof LibvirtAPI) =>
    (...args: unknown[]) => {
      const options = args[args.length - 1] as { signal?: AbortSignal } | undefined;
      const answer = answers[name];
      if (!answer) throw new Error(`${name} is not part of the health check`);
      return answer(options?.signal);
    };
  // Not a thenable: `then` stays undefined so the API can be returned from an async function.
  return new Proxy({} as LibvirtAPI, { get: (_target, name) => (name === 'then' ? undefined : method(name as keyof LibvirtAPI)) });
}

class FakeBackend implements HostBackend {
  freshDials = 0;
  closes = 0;
  pooledCalls = 0;
  constructor(private readonly fresh_: (host: string, signal?: AbortSignal) => Promise<LibvirtAPI>) {}
  async pooled(): Promise<LibvirtAPI> {
    this.pooledCalls++;
    throw new Error('the health check must not touch the pooled connection');
  }
  async fresh(host: string, options: { signal?: AbortSignal } = {}): Promise<FreshConnection> {
    this.freshDials++;
    const api = await this.fresh_(host, options.signal);
    return { api, close: async () => void this.closes++ };
  }
  async closeAll(): Promise<void> {}
}

const silent = createLogger({ level: 'silent' });

interface Row {
  reason: CheckReason;
  what: string;
  dial?: () => Promise<never>;
  script?: Script;
  /** A round timeout that fires once the probe is under way (while dialling with dialHangs). */
  roundTimesOut?: boolean;
  dialHangs?: boolean;
  details: string[];
}

const all = ['user', 'pool', 'libvirtVersion', 'hostname', 'poolState', 'poolCapacityGiB', 'poolAvailableGiB'];
const beforeDial = ['user', 'pool'];

/** Failures of the dial itself: the probe stops with only what it knew before dialling. */
const dialFailures: Array<[CheckReason, string, () => unknown]> = [
  ['CredentialsUnavailable', 'the key file is missing', () => sshDial('SSH_CREDENTIALS_MISSING', 'credentials')],
  ['CredentialsUnavailable', 'known_hosts does not parse', () => sshDial('SSH_CREDENTIALS_INVALID', 'credentials')],
  ['Unreachable', 'the TCP connect failed', () => sshDial('SSH_TCP', 'tcp')],
  ['Unreachable', 'the dial ran out of its own budget while the round had time', () => sshDial('SSH_TIMEOUT', 'tcp')],
  ['Unreachable', 'the SSH transport failed (not authentication)', () => sshDial('SSH_HANDSHAKE', 'ssh')],
  ['Unreachable', 'the forwarded libvirt socket was refused', () => sshDial('SSH_SOCKET_REFUSED', 'socket')],
  ['Unreachable', 'the libvirt handshake ran out of the dial budget', () => dialFailure(new CallTimeoutError('authList', 9_000))],
  ['Unauthorized', 'the SSH server rejected the key', () => sshDial('SSH_AUTH_FAILED', 'ssh')],
  [
    'Unauthorized',
    'the host key is missing from known_hosts',
    () => dialFailure(new HostKeyError({ reason: 'unknown', knownHostsName: 'beelink', fingerprint: 'SHA256:x', message: 'no host key' })),
  ],
  [
    'Unauthorized',
    'the host key changed',
    () => dialFailure(new HostKeyError({ reason: 'changed', knownHostsName: 'beelink', fingerprint: 'SHA256:x', message: 'changed' })),
  ],
  [
    'Forbidden',
    'libvirt refused the user at the handshake (ErrAuthFailed)',
    () => dialFailure(libvirtError('ErrAuthFailed', 'authentication failed: access denied by policy')),
  ],
  ['Forbidden', 'libvirt wants an auth scheme we cannot speak', () => dialFailure(new AuthUnsupportedError(['sasl']))],
];

/** Failures of the second call (the hostname): the probe knew the libvirt version. */
const hostnameFailures: Array<[CheckReason, string, () => unknown]> = [
  ['Unreachable', 'the link died mid-check', () => new ConnectionClosedError('the peer closed the connection')],
  ['Forbidden', 'libvirt refused an RPC (ErrAccessDenied)', () => libvirtError('ErrAccessDenied', 'access denied')],
  ['Timeout', "an RPC's own budget ran out on a live connection", () => new CallTimeoutError('connectGetHostname', 30_000)],
  ['APIError', 'any other libvirt error', () => libvirtError('ErrInternalError', 'internal error: hostname lookup failed')],
];

const rows: Row[] = [
  { reason: 'Reachable', what: 'every call answered, pool running', details: all },
  ...dialFailures.map(([reason, what, error]): Row => ({ reason, what, dial: throws(error), details: beforeDial })),
  ...hostnameFailures.map(([reason, what, error]): Row => ({
    reason,
    what,
    script: { connectGetHostname: throws(error) },
    details: [...beforeDial, 'libvirtVersion'],
  })),
  { reason: 'Timeout', what: 'the round ran out during the dial', roundTimesOut: true, dialHangs: true, details: beforeDial },
  {
    reason: 'Timeout',
    what: 'the round ran out during an RPC',
    roundTimesOut: true,
    script: { storagePoolGetInfo: hangsUntilAborted('storagePoolGetInfo') },
    details: [...beforeDial, 'libvirtVersion', 'hostname'],
  },
  {
    reason: 'PoolNotFound',
    what: 'there is no pool of that name',
    script: {
      storagePoolLookupByName: throws(() => libvirtError('ErrNoStoragePool', "Storage pool not found: no storage pool with matching name 'vms'")),
    },
    details: [...beforeDial, 'libvirtVersion', 'hostname'],
  },
  { reason: 'PoolNotActive', what: 'the pool is defined but not running', script: { storagePoolGetInfo: async () => poolInfo(0) }, details: all },
];

function backendFor(row: Row): { backend: FakeBackend; round: AbortController } {
  const round = new AbortController();
  const backend = new FakeBackend(async (_host, signal) => {
    if (row.dialHangs) {
      // A dial that takes longer than the round: it ends when the round's signal fires.
      setImmediate(() => round.abort(new Error('round timeout')));
      await new Promise((_, reject) => signal?.addEventListener('abort', () => reject(sshDial('SSH_ABORTED', 'ssh'))));
    }
    if (row.dial) await row.dial();
    if (row.roundTimesOut && !row.dialHangs) setImmediate(() => round.abort(new Error('round timeout')));
    return fakeApi(row.script ?? {});
  });
  return { backend, round };
}

describe('each health reason', () => {
  it.each(rows)('$reason: $what', async (row) => {
    const { backend, round } = backendFor(row);
    const target = await probeHost({ backend, host: beelink, logger: silent, signal: round.signal });

    expect(target.reason).toBe(row.reason);
    expect(target.ready).toBe(row.reason === 'Reachable');
    expect(target.name).toBe('beelink');
    expect(Object.keys(target.details).sort()).toEqual([...row.details].sort());
    expect(target.details).toMatchObject({ user: 'novakj', pool: 'vms' });
    // The typed pool says as much as the details do: its name always, the rest once the pool answered.
    expect(target.pool?.name).toBe('vms');
    expect(target.pool?.availableBytes !== undefined).toBe(row.details.includes('poolAvailableGiB'));
    expect(target.message === '').toBe(row.reason === 'Reachable');
    expect(backend.pooledCalls).toBe(0);
    expect(backend.closes).toBe(backend.freshDials - (row.dial || row.dialHangs ? 1 : 0));
    expect(Number.isNaN(Date.parse(target.checkedAt))).toBe(false);
    expect(target.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('has a row in the reason table for every reason, ready only for Reachable', () => {
    expect(Object.keys(checkReason).sort()).toEqual([
      'APIError',
      'CredentialsUnavailable',
      'Forbidden',
      'PoolNotActive',
      'PoolNotFound',
      'Reachable',
      'Timeout',
      'Unauthorized',
      'Unreachable',
    ]);
    for (const [reason, info] of Object.entries(checkReason)) expect(info.ready).toBe(reason === 'Reachable');
  });
});

describe('the facts a probe gathers', () => {
  it("says what the host answered, in the spec's units and words", async () => {
    const backend = new FakeBackend(async () => fakeApi({ connectGetLibVersion: async () => 10_002_003, storagePoolGetInfo: async () => poolInfo(0) }));
    const target = await probeHost({ backend, host: beelink, logger: silent });
    expect(target.details).toEqual({
      user: 'novakj',
      pool: 'vms',
      libvirtVersion: '10.2.3',
      hostname: 'beelink.lan',
      poolState: 'inactive',
      poolCapacityGiB: '200.00',
      poolAvailableGiB: '150.00',
    });
    // The same facts typed, in bytes, for the dashboard and the store.
    expect(target.pool).toEqual({ name: 'vms', state: 'inactive', capacityBytes: 200 * 1024 ** 3, availableBytes: 150 * 1024 ** 3 });
    expect(target.message).toContain('"vms"');
  });

  it("carries libvirt's own text in an APIError message", async () => {
    const backend = new FakeBackend(async () =>
      fakeApi({
        connectGetHostname: throws(() => libvirtError('ErrInternalError', 'internal error: hostname lookup failed')),
      }),
    );
    const target = await probeHost({ backend, host: beelink, logger: silent });
    expect(target.message).toContain('internal error: hostname lookup failed');
  });
});

describe('a check round', () => {
  it('checks every host concurrently, on fresh connections, and answers in config order', async () => {
    const started: string[] = [];
    let releaseFirst!: () => void;
    const firstMayFinish = new Promise<void>((resolve) => (releaseFirst = resolve));
    const backend = new FakeBackend(async (host) => {
      started.push(host);
      if (host === 'beelink')
        await firstMayFinish; // the first host is slow
      else releaseFirst(); // the second host's probe started while the first was still dialling
      return fakeApi({});
    });
    const targets = await checkHosts({ backend, settings, logger: silent });

    expect(targets.map((target) => target.name)).toEqual(['beelink', 'nuc']);
    expect(started).toEqual(['beelink', 'nuc']);
    expect(targets.map((target) => target.details.pool)).toEqual(['vms', 'default']);
    expect(backend.freshDials).toBe(2);
    expect(backend.closes).toBe(2);
    expect(backend.pooledCalls).toBe(0);
  });

  it('logs `kvm2 host checked` with ready, reason and latency', async () => {
    const { lines, logger } = captureLogs('debug');
    const backend = new FakeBackend(async () => fakeApi({ storagePoolGetInfo: async () => poolInfo(0) }));
    await probeHost({ backend, host: beelink, logger });
    const line = lines.find((candidate) => candidate.msg === 'kvm2 host checked');
    expect(line).toMatchObject({ host: 'beelink', ready: false, reason: 'PoolNotActive', level: 20 });
    expect(typeof line?.latency).toBe('number');
  });
});
