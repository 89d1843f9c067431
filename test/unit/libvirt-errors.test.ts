import { describe, expect, it } from 'vitest';
import { RpcConnection } from '@/server/libvirt/client';
import {
  AuthUnsupportedError,
  CallAbortedError,
  CallTimeoutError,
  ConnectionClosedError,
  ConnectionClosingError,
  ConnectionKilledError,
  EncodeError,
  isConnectionLost,
  isLibvirtError,
  KeepaliveTimeoutError,
  LibvirtError,
  libvirtErrorCodeName,
  libvirtErrorCodes,
  libvirtErrorDomainName,
  MessageTooLargeError,
  ProtocolError,
  StreamClosedError,
  StreamOverflowError,
  UploadSourceError,
  ConsoleBusyError,
} from '@/server/libvirt/errors';
import { FakePeer } from './rpc-fake-peer';

// The codes the provider classifies, with their numbers from include/libvirt/virterror.h.
const providerCodes: Array<[string, number]> = [
  ['ErrInternalError', 1],
  ['ErrNoSupport', 3],
  ['ErrInvalidArg', 8],
  ['ErrXMLError', 27],
  ['ErrRPC', 39],
  ['ErrNoDomain', 42],
  ['ErrAuthFailed', 45],
  ['ErrNoStoragePool', 49],
  ['ErrNoStorageVol', 50],
  ['ErrOperationInvalid', 55],
  ['ErrConfigUnsupported', 67],
  ['ErrOperationTimeout', 68],
  ['ErrNoDomainMetadata', 80],
  ['ErrAgentUnresponsive', 86],
  ['ErrAccessDenied', 88],
  ['ErrStorageVolExist', 90],
  ['ErrMultipleDomains', 110],
];

describe('the libvirt error code table', () => {
  it.each(providerCodes)('%s is %i', (name, code) => {
    expect(libvirtErrorCodes[name as keyof typeof libvirtErrorCodes]).toBe(code);
    expect(libvirtErrorCodeName(code)).toBe(name);
  });

  it('covers every virErrorNumber from 0 to 110 exactly once', () => {
    const numbers = Object.values(libvirtErrorCodes).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 111 }, (_, i) => i));
  });

  it('names a code it does not know without failing', () => {
    expect(libvirtErrorCodeName(4242)).toBe('ErrUnknown(4242)');
    expect(libvirtErrorDomainName(10)).toBe('FromQemu');
    expect(libvirtErrorDomainName(999)).toBe('FromUnknown(999)');
  });
});

describe('an error reply', () => {
  it('becomes a LibvirtError with code, name, domain and libvirt message', async () => {
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport);
    const pending = conn.call('domainLookupByName', { name: 'ghost' });
    const call = await peer.nextPacket();
    peer.replyError(call, { code: 42, domain: 10, message: "Domain not found: no domain with matching name 'ghost'" });
    const err = await pending.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LibvirtError);
    expect(err).toMatchObject({
      code: 42,
      codeName: 'ErrNoDomain',
      domain: 10,
      domainName: 'FromQemu',
      level: 2,
      procedure: 'domainLookupByName',
      message: "Domain not found: no domain with matching name 'ghost'",
    });
    expect(isLibvirtError(err, 'ErrNoDomain')).toBe(true);
    expect(isLibvirtError(err, 'ErrNoStorageVol')).toBe(false);
    expect(conn.alive).toBe(true);
  });
});

describe('ConsoleBusyError', () => {
  it('is a LibvirtError that keeps the daemon code, name and text, and does not mean the connection is lost', () => {
    const fields = { code: 9, domain: 10, message: 'operation failed: Active console session exists for this domain', level: 2 };
    const err = new ConsoleBusyError('domainOpenConsole', { ...fields, str1: null, str2: null, str3: null, int1: -1, int2: -1 });
    expect(err.name).toBe('ConsoleBusyError');
    expect(err).toBeInstanceOf(LibvirtError);
    expect(err).toMatchObject({ ...fields, codeName: 'ErrOperationFailed', procedure: 'domainOpenConsole' });
    expect(isLibvirtError(err, 'ErrOperationFailed')).toBe(true);
    expect(isConnectionLost(err)).toBe(false);
  });
});

const cause = new Error('root cause');
const clientErrors: Array<[string, Error & { code: string }, string, boolean]> = [
  ['ProtocolError', new ProtocolError('bad', { cause }), 'LIBVIRT_PROTOCOL', true],
  ['EncodeError', new EncodeError('bad', { cause }), 'LIBVIRT_ENCODE', false],
  ['MessageTooLargeError', new MessageTooLargeError('outgoing', 20, 10), 'LIBVIRT_MESSAGE_TOO_LARGE', false],
  ['ConnectionKilledError', new ConnectionKilledError('x', { cause }), 'LIBVIRT_CONNECTION_KILLED', true],
  ['ConnectionClosedError', new ConnectionClosedError('x', { cause }), 'LIBVIRT_CONNECTION_CLOSED', true],
  ['ConnectionClosingError', new ConnectionClosingError('x', { cause }), 'LIBVIRT_CONNECTION_CLOSING', true],
  ['CallTimeoutError', new CallTimeoutError('connectGetLibVersion', 2000), 'LIBVIRT_CALL_TIMEOUT', true],
  ['CallAbortedError', new CallAbortedError('connectGetLibVersion', { cause }), 'LIBVIRT_CALL_ABORTED', true],
  ['KeepaliveTimeoutError', new KeepaliveTimeoutError(30_000), 'LIBVIRT_KEEPALIVE_TIMEOUT', true],
  ['AuthUnsupportedError', new AuthUnsupportedError(['sasl']), 'LIBVIRT_AUTH_UNSUPPORTED', false],
  ['UploadSourceError', new UploadSourceError(12, { cause }), 'LIBVIRT_UPLOAD_SOURCE', false],
  ['StreamClosedError', new StreamClosedError('closed', { cause }), 'LIBVIRT_STREAM_CLOSED', false],
  ['StreamOverflowError', new StreamOverflowError('storageVolDownload', 1024), 'LIBVIRT_STREAM_OVERFLOW', false],
];

describe('client-side errors', () => {
  it.each(clientErrors)('%s has a stable code and says whether the connection is lost', (name, err, code, lost) => {
    expect(err.name).toBe(name);
    expect(err.code).toBe(code);
    expect(isConnectionLost(err)).toBe(lost);
  });

  it('keeps its cause', () => {
    for (const [, err] of clientErrors) {
      if (err.cause !== undefined) expect(err.cause).toBe(cause);
    }
    expect(new ConnectionKilledError('budget', { cause }).cause).toBe(cause);
  });
});
