// Every row of the spec's *Error classes* table through classify(): libvirt codes by table, SSH
// errors by their permanence, client-side RPC errors transient, errors that carry a class from
// their source keeping it, and NotFound turned transient inside Create.
import { describe, expect, it } from 'vitest';
import {
  AuthUnsupportedError,
  CallAbortedError,
  CallTimeoutError,
  ConnectionClosedError,
  ConnectionKilledError,
  KeepaliveTimeoutError,
  UploadSourceError,
} from '@/server/libvirt';
import { ErrNotFound, ErrPermanent, ErrQuotaExceeded, ErrTransient, ProviderError, type ProviderErrorClass } from '@/server/providers/errors';
import { classify, type Kvm2Operation } from '@/server/providers/kvm2/errors';
import { host, machineType } from '@/server/providers/kvm2/kvm2';
import { parseProviderID } from '@/server/providers/kvm2/provider-id';
import { HostKeyError, SshConnectionDeadError, SshDialError, type SshDialStage, type SshErrorCode } from '@/server/ssh';
import { libvirtError } from '@/test/fakes/fake-hypervisor';
import { kvm2Settings } from '@/test/fakes/kvm2-settings';

const settings = kvm2Settings({
  hosts: [
    { name: 'a', address: 'a:22', user: 'u', bridge: 'br0' },
    { name: 'b', address: 'b:22', user: 'u', bridge: 'br0' },
  ],
});

const sshDialError = (code: SshErrorCode, stage: SshDialStage) => new SshDialError({ code, stage, message: `ssh dial u@h:22: ${code}` });

const thrownBy = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
};

interface Row {
  what: string;
  err: () => unknown;
  op?: Kvm2Operation;
  want: ProviderErrorClass;
}

const rows: Row[] = [
  // ErrPermanent
  { what: 'placement.zone not in the catalogue', err: () => thrownBy(() => host(settings, 'nowhere')), want: 'permanent' },
  { what: 'placement.zone missing with several hosts', err: () => thrownBy(() => host(settings, undefined)), want: 'permanent' },
  { what: 'placement.machineType not in the catalogue', err: () => thrownBy(() => machineType(settings, 'huge')), want: 'permanent' },
  { what: 'a malformed providerID', op: 'get', err: () => thrownBy(() => parseProviderID('domains/x')), want: 'permanent' },
  { what: 'a host no longer in the config (Get)', op: 'get', err: () => new ErrPermanent('host "gone" is not in kvm2.hosts'), want: 'permanent' },
  ...(['ErrXMLError', 'ErrNoSupport', 'ErrInvalidArg', 'ErrAuthFailed', 'ErrAccessDenied', 'ErrNoStoragePool'] as const).map((code): Row => ({
    what: `libvirt ${code}`,
    err: () => libvirtError(code),
    want: 'permanent',
  })),
  ...(['ErrXMLError', 'ErrNoStoragePool'] as const).map((code): Row => ({
    what: `libvirt ${code} inside Create`,
    op: 'create',
    err: () => libvirtError(code),
    want: 'permanent',
  })),
  { what: 'a pool that is not running (tagged by the precheck)', op: 'create', err: () => new ErrPermanent('storage pool is not running'), want: 'permanent' },
  { what: 'SSH authentication refused', err: () => sshDialError('SSH_AUTH_FAILED', 'ssh'), want: 'permanent' },
  {
    what: 'a host key missing from known_hosts',
    err: () => new HostKeyError({ reason: 'unknown', knownHostsName: '[h]:2222', fingerprint: 'SHA256:x', message: 'unknown host key' }),
    want: 'permanent',
  },
  {
    what: 'a host key that changed',
    err: () => new HostKeyError({ reason: 'changed', knownHostsName: 'h', fingerprint: 'SHA256:x', message: 'host key changed' }),
    want: 'permanent',
  },
  { what: 'a key or known_hosts file that does not parse', err: () => sshDialError('SSH_CREDENTIALS_INVALID', 'credentials'), want: 'permanent' },
  { what: 'libvirt offering only auth schemes we cannot speak', err: () => new AuthUnsupportedError(['sasl']), want: 'permanent' },
  {
    what: 'a domain owned by another UID (tagged by Create)',
    op: 'create',
    err: () => new ErrPermanent('domain "p" belongs to uid a, not b'),
    want: 'permanent',
  },
  {
    what: 'an image URL answering 404 (tagged by the fetch, reported out of band through the upload)',
    op: 'create',
    err: () => new UploadSourceError(10, { cause: new ErrPermanent('image http://x answered 404') }),
    want: 'permanent',
  },
  // ErrQuotaExceeded
  { what: 'the pool-space precheck', op: 'create', err: () => new ErrQuotaExceeded('pool default has 1 B, needs 2 B'), want: 'quotaExceeded' },
  // ErrNotFound, and its Create exception
  ...(['get', 'delete', 'listByTag'] as const).flatMap((op) =>
    (['ErrNoDomain', 'ErrNoStorageVol'] as const).map((code): Row => ({
      what: `libvirt ${code} from ${op}`,
      op,
      err: () => libvirtError(code),
      want: 'notFound',
    })),
  ),
  ...(['ErrNoDomain', 'ErrNoStorageVol'] as const).map((code): Row => ({
    what: `libvirt ${code} inside Create`,
    op: 'create',
    err: () => libvirtError(code),
    want: 'transient',
  })),
  { what: 'a NotFound tagged elsewhere, inside Create', op: 'create', err: () => new ErrNotFound('gone'), want: 'transient' },
  // ErrTransient
  { what: 'a missing key or known_hosts file', err: () => sshDialError('SSH_CREDENTIALS_MISSING', 'credentials'), want: 'transient' },
  { what: 'a TCP connect that failed', err: () => sshDialError('SSH_TCP', 'tcp'), want: 'transient' },
  { what: 'a dial that ran out of its budget', err: () => sshDialError('SSH_TIMEOUT', 'ssh'), want: 'transient' },
  { what: 'sshd refusing the socket forward', err: () => sshDialError('SSH_SOCKET_REFUSED', 'socket'), want: 'transient' },
  {
    what: 'an SSH connection that died',
    err: () => new SshConnectionDeadError({ reason: 'keepalive-timeout', message: 'ssh connection died' }),
    want: 'transient',
  },
  {
    what: 'a network error',
    err: () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
    want: 'transient',
  },
  {
    what: 'a cancelled context (abort)',
    err: () => new CallAbortedError('domainCreate', { cause: new DOMException('aborted', 'AbortError') }),
    want: 'transient',
  },
  { what: 'an AbortSignal reason', err: () => new DOMException('This operation was aborted', 'AbortError'), want: 'transient' },
  { what: 'a call that exceeded its budget', err: () => new CallTimeoutError('domainCreate', 90_000), want: 'transient' },
  {
    what: 'a connection killed by another caller',
    err: () => new ConnectionKilledError('call abandoned', { cause: new CallTimeoutError('x', 1) }),
    want: 'transient',
  },
  { what: 'a connection closed by the peer', err: () => new ConnectionClosedError('the peer closed the connection'), want: 'transient' },
  { what: 'a keepalive that went unanswered', err: () => new KeepaliveTimeoutError(30_000), want: 'transient' },
  { what: 'libvirt ErrOperationInvalid', err: () => libvirtError('ErrOperationInvalid'), want: 'transient' },
  { what: 'libvirt ErrInternalError (a full pool)', op: 'create', err: () => libvirtError('ErrInternalError'), want: 'transient' },
  { what: 'an unrecognised libvirt code', err: () => libvirtError(4242), want: 'transient' },
  { what: 'an image URL answering 503 (tagged by the fetch)', op: 'create', err: () => new ErrTransient('image http://x answered 503'), want: 'transient' },
  {
    what: 'the wait for running expiring (tagged by Create)',
    op: 'create',
    err: () => new ErrTransient('domain did not reach running within 15 s'),
    want: 'transient',
  },
  { what: 'something nobody anticipated', err: () => new TypeError('undefined is not a function'), want: 'transient' },
  { what: 'a thrown non-Error', err: () => 'a string', want: 'transient' },
];

describe('classify follows the spec error table', () => {
  it.each(rows)('$what -> $want', ({ err, op, want }) => {
    const original = err();
    const classified = classify(original, { op: op ?? 'get' });
    expect(classified).toBeInstanceOf(ProviderError);
    expect(classified.errorClass).toBe(want);
  });
});

describe('classify keeps what the caller needs', () => {
  it("keeps libvirt's code, name and text reachable through the cause", () => {
    const original = libvirtError('ErrNoDomain', "Domain not found: no domain with matching name 'p'");
    const classified = classify(original, { op: 'get' });
    expect(classified).toBeInstanceOf(ErrNotFound);
    expect(classified.message).toBe("Domain not found: no domain with matching name 'p'");
    expect(classified.cause).toBe(original);
    expect(classified.cause).toMatchObject({ code: 42, codeName: 'ErrNoDomain' });
  });

  it('classifies exactly once: a classified error comes back unchanged', () => {
    const once = classify(libvirtError('ErrXMLError'), { op: 'create' });
    expect(classify(once, { op: 'create' })).toBe(once);
    expect(classify(once, { op: 'get' })).toBe(once);
  });

  it('returns an error that already carries the right class as it is', () => {
    const tagged = new ErrQuotaExceeded('pool default has 1 GiB free, needs 11 GiB');
    expect(classify(tagged, { op: 'create' })).toBe(tagged);
  });

  it('keeps a class carried deeper in the cause chain rather than reclassifying the wrapper', () => {
    const wrapper = new Error('upload failed', { cause: new ErrPermanent('image http://x has no Content-Length') });
    const classified = classify(wrapper, { op: 'create' });
    expect(classified).toBeInstanceOf(ErrPermanent);
    expect(classified.cause).toBe(wrapper);
  });

  it('never puts more into the message than the original said', () => {
    const original = sshDialError('SSH_AUTH_FAILED', 'ssh');
    expect(classify(original, { op: 'dial' }).message).toBe(original.message);
  });
});
