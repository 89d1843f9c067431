import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MessageTooLargeError, ProtocolError } from '@/server/libvirt/errors';
import { encodeFrame, encodeHeader, FrameDecoder, type Packet } from '@/server/libvirt/framing';
import { MESSAGE_MAX, MessageStatus, MessageType, type MessageHeader } from '@/server/libvirt/net-protocol';
import { REMOTE_PROGRAM } from '@/server/libvirt/protocol';

const header = (serial: number, overrides: Partial<MessageHeader> = {}): MessageHeader => ({
  program: REMOTE_PROGRAM,
  version: 1,
  procedure: 157,
  type: MessageType.Reply,
  serial,
  status: MessageStatus.Ok,
  ...overrides,
});

const frames: Array<[MessageHeader, Buffer]> = [
  [header(1), Buffer.from('0000000000895440', 'hex')],
  [header(2, { type: MessageType.Stream, status: MessageStatus.Continue }), Buffer.alloc(70_000, 7)],
  [header(3, { procedure: 1 }), Buffer.alloc(0)],
  [header(4, { type: MessageType.Message, serial: 0 }), Buffer.from('abcd')],
];
const wire = Buffer.concat(frames.map(([h, p]) => encodeFrame(h, p)));

// Payloads compared as hex: deep equality over 70 KB buffers element by element is very slow.
const plain = (packets: Packet[]) => packets.map((p) => ({ header: p.header, payload: p.payload.toString('hex') }));
const expected = frames.map(([h, p]) => ({ header: h, payload: p.toString('hex') }));

describe('framing across chunk boundaries', () => {
  it('writes the length word counting itself, then the 24-byte header', () => {
    const bytes = encodeFrame(header(9), Buffer.from('01020304', 'hex'));
    expect(bytes.readUInt32BE(0)).toBe(4 + 24 + 4);
    expect(bytes.subarray(4, 28).toString('hex')).toBe('20008086' + '00000001' + '0000009d' + '00000001' + '00000009' + '00000000');
  });

  it('decodes a stream fed one byte at a time', () => {
    const decoder = new FrameDecoder();
    const packets: Packet[] = [];
    for (let i = 0; i < wire.length; i++) packets.push(...decoder.push(wire.subarray(i, i + 1)));
    expect(plain(packets)).toEqual(expected);
    expect(decoder.midFrame).toBe(false);
  });

  it('decodes the same packets whatever the chunk boundaries', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: wire.length }), { maxLength: 20 }), (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        const decoder = new FrameDecoder();
        const packets: Packet[] = [];
        let start = 0;
        for (const point of [...points, wire.length]) {
          packets.push(...decoder.push(wire.subarray(start, point)));
          start = point;
        }
        expect(plain(packets)).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('reports a frame in progress until its last byte arrives', () => {
    const decoder = new FrameDecoder();
    const one = encodeFrame(header(1), Buffer.alloc(8));
    expect(decoder.push(one.subarray(0, 10))).toEqual([]);
    expect(decoder.midFrame).toBe(true);
    expect(decoder.push(one.subarray(10))).toHaveLength(1);
    expect(decoder.midFrame).toBe(false);
  });
});

describe('message size limits (VIR_NET_MESSAGE_MAX, 16 MiB)', () => {
  it('accepts an incoming message of exactly 16 MiB', () => {
    const payload = Buffer.alloc(MESSAGE_MAX - 24);
    const [packet] = new FrameDecoder().push(encodeFrame(header(1), payload));
    expect(packet?.payload.length).toBe(MESSAGE_MAX - 24);
  });

  it('refuses an incoming length over 16 MiB before buffering it', () => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(4 + MESSAGE_MAX + 1);
    expect(() => new FrameDecoder().push(length)).toThrow(MessageTooLargeError);
  });

  it('refuses to encode an outgoing message over 16 MiB', () => {
    const err = (() => {
      try {
        encodeHeader(header(1), MESSAGE_MAX - 24 + 1);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(MessageTooLargeError);
    expect(err).toMatchObject({ code: 'LIBVIRT_MESSAGE_TOO_LARGE', direction: 'outgoing' });
  });

  it('refuses a length shorter than the header', () => {
    expect(() => new FrameDecoder().push(Buffer.from('0000001b', 'hex'))).toThrow(ProtocolError);
  });

  it('refuses an unknown message type or status', () => {
    const badType = encodeFrame(header(1));
    badType.writeInt32BE(9, 16);
    expect(() => new FrameDecoder().push(badType)).toThrow(ProtocolError);
    const badStatus = encodeFrame(header(1));
    badStatus.writeInt32BE(7, 24);
    expect(() => new FrameDecoder().push(badStatus)).toThrow(ProtocolError);
  });
});
