import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EncodeError, ProtocolError } from '@/server/libvirt/errors';
import { remoteError } from '@/server/libvirt/net-protocol';
import { eventMessages, procedures, typedParam, type EventName, type ProcedureName } from '@/server/libvirt/protocol';
import { decodeXdr, encodeXdr, type Shape } from '@/server/libvirt/xdr';
import {
  xdrArray,
  xdrBool,
  xdrBytes,
  xdrDouble,
  xdrFixedArray,
  xdrInt,
  xdrOpaque,
  xdrOptional,
  xdrString,
  xdrUhyperNumber,
  xdrUint,
  xdrUnion,
} from '@/server/libvirt/xdr-shapes';
import { arbitraryFor } from './xdr-arbitrary';

const names = Object.keys(procedures) as ProcedureName[];
const shapes: Array<[string, Shape<unknown>]> = [
  ...names.flatMap((name): Array<[string, Shape<unknown>]> => [
    [`${name} args`, procedures[name].args as Shape<unknown>],
    [`${name} ret`, procedures[name].ret as Shape<unknown>],
  ]),
  ...(Object.keys(eventMessages) as EventName[]).map((name): [string, Shape<unknown>] => [`${name} message`, eventMessages[name].msg as Shape<unknown>]),
  ['remote_error', remoteError as Shape<unknown>],
];

describe('every declared shape survives an XDR round trip', () => {
  it.each(shapes)('%s', (_label, shape) => {
    fc.assert(
      fc.property(arbitraryFor(shape), (value) => {
        const bytes = encodeXdr(shape, value);
        expect(bytes.length % 4).toBe(0);
        expect(decodeXdr(shape, bytes)).toEqual(value);
      }),
      { numRuns: 60 },
    );
  });
});

describe('XDR wire layout', () => {
  it('pads strings to 4 bytes after a big-endian length', () => {
    expect(encodeXdr(xdrString(), 'abcde').toString('hex')).toBe('00000005' + '6162636465' + '000000');
  });

  it('encodes an optional as a discriminant then the value', () => {
    expect(encodeXdr(xdrOptional(xdrInt), null).toString('hex')).toBe('00000000');
    expect(encodeXdr(xdrOptional(xdrInt), 7).toString('hex')).toBe('00000001' + '00000007');
  });

  it('encodes an unsigned hyper as 8 big-endian bytes', () => {
    expect(encodeXdr(xdrUhyperNumber, 9_000_000).toString('hex')).toBe('0000000000895440');
  });

  it('encodes a double as 8 big-endian IEEE 754 bytes', () => {
    expect(encodeXdr(xdrDouble, 1.5).toString('hex')).toBe('3ff8000000000000');
  });

  it('encodes a union as its discriminant then the selected arm', () => {
    const union = xdrUnion({ 1: xdrInt, 7: xdrString() });
    expect(encodeXdr(union, { type: 7, value: 'ab' }).toString('hex')).toBe('00000007' + '00000002' + '61620000');
    expect(decodeXdr(union, Buffer.from('00000001fffffffe', 'hex'))).toEqual({ type: 1, value: -2 });
  });

  it('encodes a fixed array without a count, one int per char as rpcgen does for char[n]', () => {
    expect(encodeXdr(xdrFixedArray(xdrInt, 2), [0x78, 0]).toString('hex')).toBe('00000078' + '00000000');
  });

  it('encodes a typed parameter (remote_typed_param) as field, type, value', () => {
    const param = { field: 'cpu.time', value: { type: 4 as const, value: 6920000000n } };
    expect(encodeXdr(typedParam, param).toString('hex')).toBe('00000008' + Buffer.from('cpu.time').toString('hex') + '00000004' + '000000019c76d200');
  });

  it('encodes the connectOpen arguments as libvirt expects', () => {
    const bytes = encodeXdr(procedures.connectOpen.args, { name: 'qemu:///system', flags: 0 });
    expect(bytes.toString('hex')).toBe('00000001' + '0000000e' + Buffer.from('qemu:///system').toString('hex') + '0000' + '00000000');
  });
});

describe('XDR refuses what it cannot represent', () => {
  const refusals: Array<[string, () => unknown, new (...args: never[]) => Error]> = [
    ['a truncated int', () => decodeXdr(xdrInt, Buffer.alloc(3)), ProtocolError],
    ['a string longer than its limit', () => decodeXdr(xdrString(4), encodeXdr(xdrString(), 'hello')), ProtocolError],
    ['a string cut short', () => decodeXdr(xdrString(), Buffer.from('0000000a6162', 'hex')), ProtocolError],
    ['an optional with discriminant 2', () => decodeXdr(xdrOptional(xdrInt), Buffer.from('0000000200000001', 'hex')), ProtocolError],
    ['a bool of 5', () => decodeXdr(xdrBool, Buffer.from('00000005', 'hex')), ProtocolError],
    ['an array over its limit', () => decodeXdr(xdrArray(xdrInt, 2), encodeXdr(xdrArray(xdrInt, 9), [1, 2, 3])), ProtocolError],
    ['an array count the payload cannot hold', () => decodeXdr(xdrArray(xdrInt, 1e9), Buffer.from('7fffffff', 'hex')), ProtocolError],
    ['trailing bytes', () => decodeXdr(xdrInt, Buffer.alloc(8)), ProtocolError],
    ['an unsigned hyper past 2^53', () => decodeXdr(xdrUhyperNumber, Buffer.from('ffffffffffffffff', 'hex')), ProtocolError],
    ['opaque<max> over its limit', () => decodeXdr(xdrBytes(2), encodeXdr(xdrBytes(8), Buffer.alloc(3))), ProtocolError],
    ['encoding an int out of range', () => encodeXdr(xdrInt, 2 ** 31), EncodeError],
    ['encoding a negative unsigned int', () => encodeXdr(xdrUint, -1), EncodeError],
    ['encoding a string over 4 MiB', () => encodeXdr(xdrString(), 'x'.repeat(4 * 1024 * 1024 + 1)), EncodeError],
    ['encoding a uuid of the wrong size', () => encodeXdr(xdrOpaque(16), Buffer.alloc(15)), EncodeError],
    ['encoding an unsafe integer as hyper', () => encodeXdr(xdrUhyperNumber, 2 ** 60), EncodeError],
    ['a union discriminant with no arm', () => decodeXdr(xdrUnion({ 1: xdrInt }), Buffer.from('0000000900000000', 'hex')), ProtocolError],
    ['encoding a union discriminant with no arm', () => encodeXdr(xdrUnion({ 1: xdrInt }), { type: 2 as 1, value: 0 }), EncodeError],
    ['encoding a fixed array of the wrong length', () => encodeXdr(xdrFixedArray(xdrInt, 32), [1]), EncodeError],
  ];

  it.each(refusals)('%s', (_label, attempt, errorClass) => {
    expect(attempt).toThrow(errorClass);
  });

  it('accepts a string of exactly 4 MiB', () => {
    const big = 'y'.repeat(4 * 1024 * 1024);
    expect(decodeXdr(xdrString(), encodeXdr(xdrString(), big))).toBe(big);
  });
});
