import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RpcConnection } from '@/server/libvirt/client';
import { LibvirtError, RpcError } from '@/server/libvirt/errors';
import { encodeFrame, FrameDecoder } from '@/server/libvirt/framing';
import { MessageStatus, MessageType } from '@/server/libvirt/net-protocol';
import { procedures, REMOTE_PROGRAM, type ProcedureName } from '@/server/libvirt/protocol';
import { decodeXdr, encodeXdr, type Shape } from '@/server/libvirt/xdr';
import { FakePeer } from './rpc-fake-peer';
import { arbitraryFor } from './xdr-arbitrary';

const retShapes = (Object.keys(procedures) as ProcedureName[]).map((name) => procedures[name].ret as Shape<unknown>);

/** Runs `work`; anything thrown must be one of our typed errors. */
function onlyTypedErrors(work: () => void): void {
  try {
    work();
  } catch (err) {
    expect(err).toBeInstanceOf(RpcError);
  }
}

const chunked = (bytes: Buffer, sizes: number[]): Buffer[] => {
  const chunks: Buffer[] = [];
  let at = 0;
  for (const size of sizes) {
    if (at >= bytes.length) break;
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  if (at < bytes.length) chunks.push(bytes.subarray(at));
  return chunks;
};

const validFrame = fc
  .tuple(fc.constantFrom(...retShapes), fc.nat({ max: 2 ** 32 - 1 }))
  .chain(([shape, serial]) =>
    arbitraryFor(shape).map((value) =>
      encodeFrame({ program: REMOTE_PROGRAM, version: 1, procedure: 1, type: MessageType.Reply, serial, status: MessageStatus.Ok }, encodeXdr(shape, value)),
    ),
  );

describe('the decoder fed random and broken input', () => {
  it('random bytes in random chunks: packets or a typed error, never a crash', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), fc.array(fc.integer({ min: 1, max: 64 })), (bytes, sizes) => {
        const decoder = new FrameDecoder();
        onlyTypedErrors(() => {
          for (const chunk of chunked(Buffer.from(bytes), sizes)) {
            for (const packet of decoder.push(chunk)) {
              for (const shape of retShapes) onlyTypedErrors(() => decodeXdr(shape, packet.payload));
            }
          }
        });
      }),
      { numRuns: 500 },
    );
  });

  it('a truncated frame waits for the rest and never yields a packet', () => {
    fc.assert(
      fc.property(validFrame, fc.double({ min: 0, max: 1, noNaN: true }), (frame, fraction) => {
        const cut = Math.min(frame.length - 1, Math.floor(frame.length * fraction));
        const decoder = new FrameDecoder();
        expect(decoder.push(frame.subarray(0, cut))).toEqual([]);
        expect(decoder.midFrame).toBe(cut > 0);
      }),
      { numRuns: 300 },
    );
  });

  it('a payload cut short but correctly framed gives a ProtocolError from every shape', () => {
    fc.assert(
      fc.property(fc.constantFrom(...retShapes), fc.nat(), (shape, seed) => {
        const value = fc.sample(arbitraryFor(shape), { seed, numRuns: 1 })[0];
        const payload = encodeXdr(shape, value);
        fc.pre(payload.length > 0);
        const short = payload.subarray(0, seed % payload.length);
        onlyTypedErrors(() => decodeXdr(shape, short));
        expect(() => decodeXdr(shape, short)).toThrow(RpcError);
      }),
      { numRuns: 300 },
    );
  });

  it('valid frames with random bytes flipped: only typed errors', () => {
    fc.assert(
      fc.property(validFrame, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }), (frame, flips) => {
        const mutated = Buffer.from(frame);
        for (const [at, byte] of flips) mutated[at % mutated.length] = byte;
        onlyTypedErrors(() => {
          for (const packet of new FrameDecoder().push(mutated)) {
            for (const shape of retShapes) onlyTypedErrors(() => decodeXdr(shape, packet.payload));
          }
        });
      }),
      { numRuns: 500 },
    );
  });
});

describe('a client whose peer answers garbage', () => {
  it('settles every pending call with a typed error and never hangs', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 400 }), fc.boolean(), async (garbage, peerEnds) => {
        const peer = new FakePeer();
        const conn = new RpcConnection(peer.transport, { defaultTimeoutMs: 5_000 });
        const calls = [
          conn.call('connectGetLibVersion', undefined),
          conn.call('connectGetHostname', undefined),
          conn.call('domainLookupByName', { name: 'x' }),
        ];
        peer.sendRaw(Buffer.from(garbage));
        if (peerEnds) peer.end();
        else peer.transport.destroy();
        const results = await Promise.allSettled(calls);
        for (const result of results) {
          if (result.status === 'rejected') {
            expect(result.reason instanceof RpcError || result.reason instanceof LibvirtError).toBe(true);
          }
        }
        expect(conn.alive).toBe(false);
      }),
      { numRuns: 100 },
    );
  });
});
