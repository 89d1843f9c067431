// The last bytes a serial console printed (256 KiB by default): what a page shows before the live
// output, and what the diagnosis reads for the boot's progress. Older bytes fall off the front.

export const defaultConsoleBufferBytes = 256 * 1024;

export class ConsoleBuffer {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(readonly capacityBytes = defaultConsoleBufferBytes) {}

  get length(): number {
    return this.size;
  }

  append(data: Uint8Array): void {
    if (data.length === 0) return;
    // A chunk larger than the whole buffer keeps only its tail.
    const chunk = Buffer.from(data.length > this.capacityBytes ? data.subarray(data.length - this.capacityBytes) : data);
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.capacityBytes) {
      const first = this.chunks[0] as Buffer;
      const excess = this.size - this.capacityBytes;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
    }
  }

  /** Everything held, oldest first. */
  bytes(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks, this.size)];
    return this.chunks[0] ?? Buffer.alloc(0);
  }

  /** As text (UTF-8; a character cut at the front shows as U+FFFD). */
  text(): string {
    return this.bytes().toString('utf8');
  }

  clear(): void {
    this.chunks = [];
    this.size = 0;
  }
}
