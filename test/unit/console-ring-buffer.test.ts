// The console's ring buffer: keeps the last `capacity` bytes in order, whatever the chunk sizes.
import { describe, expect, it } from 'vitest';
import { ConsoleBuffer, defaultConsoleBufferBytes } from '@/server/control/console-buffer';

describe('ConsoleBuffer', () => {
  it('holds 256 KiB by default', () => {
    expect(new ConsoleBuffer().capacityBytes).toBe(256 * 1024);
    expect(defaultConsoleBufferBytes).toBe(262_144);
  });

  it('keeps everything while under capacity, in order', () => {
    const buffer = new ConsoleBuffer(16);
    buffer.append(Buffer.from('login: '));
    buffer.append(Buffer.from('root\r\n'));
    expect(buffer.text()).toBe('login: root\r\n');
    expect(buffer.length).toBe(13);
  });

  it.each([
    { chunks: ['abcdefgh', 'ijkl'], capacity: 10, kept: 'cdefghijkl' },
    { chunks: ['abc', 'def', 'ghi', 'jkl'], capacity: 5, kept: 'hijkl' },
    { chunks: ['abcdefghijklmnop'], capacity: 4, kept: 'mnop' },
    { chunks: ['ab', 'cdefghijklmnop', 'q'], capacity: 4, kept: 'nopq' },
    { chunks: ['', 'x', ''], capacity: 4, kept: 'x' },
  ])('drops the oldest bytes past capacity: $chunks in $capacity bytes keeps $kept', ({ chunks, capacity, kept }) => {
    const buffer = new ConsoleBuffer(capacity);
    for (const chunk of chunks) buffer.append(Buffer.from(chunk));
    expect(buffer.text()).toBe(kept);
    expect(buffer.length).toBe(kept.length);
  });

  it('stays at capacity over many appends', () => {
    const buffer = new ConsoleBuffer(1000);
    for (let i = 0; i < 10_000; i++) buffer.append(Buffer.from(`${i % 10}`));
    expect(buffer.length).toBe(1000);
    expect(buffer.text()).toBe('0123456789'.repeat(100));
  });

  it('shows a character cut at the front as U+FFFD, the rest intact', () => {
    const buffer = new ConsoleBuffer(5);
    buffer.append(Buffer.from('é1234'));
    expect(buffer.text()).toBe('\uFFFD1234');
  });

  it('clear empties it', () => {
    const buffer = new ConsoleBuffer(8);
    buffer.append(Buffer.from('boot'));
    buffer.clear();
    expect(buffer.length).toBe(0);
    expect(buffer.text()).toBe('');
  });
});
