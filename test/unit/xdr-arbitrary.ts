// fast-check arbitraries derived from a Shape's own description, so every declared shape can be
// exercised without writing samples by hand.
import fc from 'fast-check';
import type { Shape } from '@/server/libvirt/xdr';

/** Keeps generated values small: the limits themselves are tested separately. */
const SMALL = 6;

export function arbitraryFor(shape: Shape<unknown>): fc.Arbitrary<unknown> {
  const info = shape.info;
  switch (info.kind) {
    case 'void':
      return fc.constant(undefined);
    case 'int':
      return fc.integer({ min: -0x80000000, max: 0x7fffffff });
    case 'uint':
      return fc.integer({ min: 0, max: 0xffffffff });
    case 'bool':
      return fc.boolean();
    case 'hyper':
      return fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    case 'uhyper':
      return fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
    case 'double':
      return fc.double({ noNaN: true });
    case 'uhyperNumber':
      return fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });
    case 'string':
      return fc.string({ unit: 'grapheme', maxLength: 12 });
    case 'opaque':
      return fc.uint8Array({ minLength: info.fixed, maxLength: info.fixed }).map((bytes) => Buffer.from(bytes));
    case 'bytes':
      return fc.uint8Array({ maxLength: Math.min(info.max, 13) }).map((bytes) => Buffer.from(bytes));
    case 'optional':
      return fc.option(arbitraryFor(info.of), { nil: null });
    case 'array':
      return fc.array(arbitraryFor(info.of), { maxLength: Math.min(info.max, SMALL) });
    case 'fixedArray':
      return fc.array(arbitraryFor(info.of), { minLength: info.length, maxLength: info.length });
    case 'union':
      return fc.oneof(...info.arms.map(([type, arm]) => arbitraryFor(arm).map((value) => ({ type, value }))));
    case 'struct':
      return fc.record(Object.fromEntries(info.fields.map(([name, field]) => [name, arbitraryFor(field)])));
  }
}
