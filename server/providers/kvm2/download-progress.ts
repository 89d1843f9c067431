// Live progress of base-image downloads, so the dashboard can show bytes, rate and ETA for a
// Proxy waiting on its image. One entry per (host, volume) while the transfer runs.
import type { DownloadProgress } from '@/server/providers/host-inventory';

export type { DownloadProgress };

export class DownloadTracker {
  private readonly active = new Map<string, DownloadProgress>();

  constructor(private readonly now: () => number = Date.now) {}

  start(options: { host: string; volume: string; urlHost: string; totalBytes: number }): (bytes: number) => void {
    const entry: DownloadProgress = { ...options, doneBytes: 0, startedAt: this.now(), bytesPerSecond: 0, etaSeconds: null };
    this.active.set(key(options.host, options.volume), entry);
    return (bytes) => {
      entry.doneBytes += bytes;
      const seconds = (this.now() - entry.startedAt) / 1000;
      entry.bytesPerSecond = seconds > 0 ? entry.doneBytes / seconds : 0;
      entry.etaSeconds = entry.bytesPerSecond > 0 ? Math.max(0, (entry.totalBytes - entry.doneBytes) / entry.bytesPerSecond) : null;
    };
  }

  finish(host: string, volume: string): void {
    this.active.delete(key(host, volume));
  }

  get(host: string, volume: string): DownloadProgress | undefined {
    const entry = this.active.get(key(host, volume));
    return entry && { ...entry };
  }

  list(): DownloadProgress[] {
    return [...this.active.values()].map((entry) => ({ ...entry }));
  }
}

const key = (host: string, volume: string) => `${host}\u0000${volume}`;
