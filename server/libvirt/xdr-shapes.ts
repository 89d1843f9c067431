// The XDR shapes libvirt's .x files are written in (RFC 4506 as rpcgen uses it): primitives, then
// strings, opaques, optionals, arrays, unions and structs built from them, each with its own
// bounds. The procedure table and the remote types are declared with these; xdr.ts runs them.
import { EncodeError, ProtocolError } from './errors';
import { XDR_STRING_MAX, type Shape } from './xdr';

// ---- primitive shapes -------------------------------------------------------------------------

export const xdrVoid: Shape<void> = {
  info: { kind: 'void' },
  encode: () => undefined,
  decode: () => undefined,
};

export const xdrInt: Shape<number> = {
  info: { kind: 'int' },
  encode: (w, v) => w.int(v),
  decode: (r) => r.int(),
};

export const xdrUint: Shape<number> = {
  info: { kind: 'uint' },
  encode: (w, v) => w.uint(v),
  decode: (r) => r.uint(),
};

export const xdrBool: Shape<boolean> = {
  info: { kind: 'bool' },
  encode: (w, v) => w.int(v ? 1 : 0),
  decode: (r) => {
    const v = r.int();
    if (v !== 0 && v !== 1) throw new ProtocolError(`bool must be 0 or 1, got ${v}`);
    return v === 1;
  },
};

export const xdrHyper: Shape<bigint> = {
  info: { kind: 'hyper' },
  encode: (w, v) => w.hyper(v),
  decode: (r) => r.hyper(),
};

export const xdrUhyper: Shape<bigint> = {
  info: { kind: 'uhyper' },
  encode: (w, v) => w.uhyper(v),
  decode: (r) => r.uhyper(),
};

/** IEEE 754 double precision, big-endian (XDR `double`). */
export const xdrDouble: Shape<number> = {
  info: { kind: 'double' },
  encode: (w, v) => w.double(v),
  decode: (r) => r.double(),
};

/** An unsigned hyper that is a byte count or a version: a plain number, refused past 2^53. */
export const xdrUhyperNumber: Shape<number> = {
  info: { kind: 'uhyperNumber' },
  encode: (w, v) => {
    if (!Number.isSafeInteger(v) || v < 0) throw new EncodeError(`unsigned hyper must be a safe integer: ${v}`);
    w.uhyper(BigInt(v));
  },
  decode: (r) => {
    const v = r.uhyper();
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new ProtocolError(`unsigned hyper ${v} exceeds 2^53`);
    return Number(v);
  },
};

export function xdrString(max = XDR_STRING_MAX): Shape<string> {
  return {
    info: { kind: 'string', max },
    encode: (w, v) => {
      const bytes = Buffer.from(v, 'utf8');
      if (bytes.length > max) throw new EncodeError(`string of ${bytes.length} bytes exceeds ${max}`);
      w.uint(bytes.length);
      w.padded(bytes);
    },
    decode: (r) => {
      const length = r.uint();
      if (length > max) throw new ProtocolError(`string of ${length} bytes exceeds ${max}`);
      return r.padded(length, 'string').toString('utf8');
    },
  };
}

/** Fixed-length opaque, e.g. remote_uuid (opaque[16]). */
export function xdrOpaque(fixed: number): Shape<Buffer> {
  return {
    info: { kind: 'opaque', fixed },
    encode: (w, v) => {
      if (v.length !== fixed) throw new EncodeError(`opaque[${fixed}] given ${v.length} bytes`);
      w.padded(v);
    },
    decode: (r) => Buffer.from(r.padded(fixed, `opaque[${fixed}]`)),
  };
}

/** Variable-length opaque<max>. */
export function xdrBytes(max: number): Shape<Buffer> {
  return {
    info: { kind: 'bytes', max },
    encode: (w, v) => {
      if (v.length > max) throw new EncodeError(`opaque of ${v.length} bytes exceeds ${max}`);
      w.uint(v.length);
      w.padded(v);
    },
    decode: (r) => {
      const length = r.uint();
      if (length > max) throw new ProtocolError(`opaque of ${length} bytes exceeds ${max}`);
      return Buffer.from(r.padded(length, 'opaque'));
    },
  };
}

/** XDR optional-data (`T *`): a bool discriminant, then the value when present. */
export function xdrOptional<T>(of: Shape<T>): Shape<T | null> {
  return {
    info: { kind: 'optional', of: of as Shape<unknown> },
    encode: (w, v) => {
      w.int(v === null ? 0 : 1);
      if (v !== null) of.encode(w, v);
    },
    decode: (r) => (xdrBool.decode(r) ? of.decode(r) : null),
  };
}

/** Variable-length array T<max>. */
export function xdrArray<T>(of: Shape<T>, max: number): Shape<T[]> {
  return {
    info: { kind: 'array', of: of as Shape<unknown>, max },
    encode: (w, v) => {
      if (v.length > max) throw new EncodeError(`array of ${v.length} elements exceeds ${max}`);
      w.uint(v.length);
      for (const item of v) of.encode(w, item);
    },
    decode: (r) => {
      const count = r.uint();
      if (count > max) throw new ProtocolError(`array of ${count} elements exceeds ${max}`);
      // Every element takes at least 4 bytes, so a count the payload cannot hold is refused
      // before anything is allocated for it.
      if (count > r.remaining / 4 && of.info.kind !== 'void') {
        throw new ProtocolError(`array claims ${count} elements but ${r.remaining} bytes are left`);
      }
      const items: T[] = [];
      for (let i = 0; i < count; i++) items.push(of.decode(r));
      return items;
    },
  };
}

/** Fixed-length array T[n], e.g. `char model[32]` (rpcgen sends each char as a 4-byte int). */
export function xdrFixedArray<T>(of: Shape<T>, length: number): Shape<T[]> {
  return {
    info: { kind: 'fixedArray', of: of as Shape<unknown>, length },
    encode: (w, v) => {
      if (v.length !== length) throw new EncodeError(`fixed array of ${length} elements given ${v.length}`);
      for (const item of v) of.encode(w, item);
    },
    decode: (r) => Array.from({ length }, () => of.decode(r)),
  };
}

type UnionValue<A extends Record<number, Shape<unknown>>> = {
  [K in keyof A & number]: { type: K; value: A[K] extends Shape<infer T> ? T : never };
}[keyof A & number];

/** A discriminated union `switch (int type)`: the discriminant, then the arm it selects. */
export function xdrUnion<A extends Record<number, Shape<unknown>>>(arms: A): Shape<UnionValue<A>> {
  const entries = Object.entries(arms).map(([key, shape]) => [Number(key), shape] as const);
  const byType = new Map<number, Shape<unknown>>(entries);
  return {
    info: { kind: 'union', arms: entries },
    encode: (w, v) => {
      const arm = byType.get(v.type);
      if (!arm) throw new EncodeError(`union has no arm for discriminant ${v.type}`);
      w.int(v.type);
      arm.encode(w, v.value);
    },
    decode: (r) => {
      const type = r.int();
      const arm = byType.get(type);
      if (!arm) throw new ProtocolError(`union has no arm for discriminant ${type}`);
      return { type, value: arm.decode(r) } as UnionValue<A>;
    },
  };
}

type StructValue<F extends Record<string, Shape<unknown>>> = { [K in keyof F]: F[K] extends Shape<infer T> ? T : never };

/** A struct: its fields encoded in declaration order, exactly as the .x file lists them. */
export function xdrStruct<F extends Record<string, Shape<unknown>>>(fields: F): Shape<StructValue<F>> {
  const entries = Object.entries(fields) as Array<[keyof F & string, Shape<unknown>]>;
  return {
    info: { kind: 'struct', fields: entries },
    encode: (w, v) => {
      for (const [name, shape] of entries) shape.encode(w, v[name]);
    },
    decode: (r) => {
      const value = {} as Record<string, unknown>;
      for (const [name, shape] of entries) value[name] = shape.decode(r);
      return value as StructValue<F>;
    },
  };
}
