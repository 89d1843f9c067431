import { describe, expect, it } from 'vitest';
import { DownloadTracker } from '@/server/providers/kvm2/download-progress';

describe('DownloadTracker', () => {
  it('reports bytes, rate and ETA while a download runs, and forgets it when finished', () => {
    let now = 1_000_000;
    const tracker = new DownloadTracker(() => now);
    const advance = tracker.start({ host: 'lab1', volume: 'base-lab-x.qcow2', urlHost: 'mirror', totalBytes: 1000 });
    expect(tracker.get('lab1', 'base-lab-x.qcow2')).toMatchObject({ doneBytes: 0, etaSeconds: null });

    now += 2000;
    advance(400);
    expect(tracker.get('lab1', 'base-lab-x.qcow2')).toMatchObject({ doneBytes: 400, bytesPerSecond: 200, etaSeconds: 3 });
    expect(tracker.list()).toHaveLength(1);

    tracker.finish('lab1', 'base-lab-x.qcow2');
    expect(tracker.get('lab1', 'base-lab-x.qcow2')).toBeUndefined();
    expect(tracker.list()).toEqual([]);
  });

  it('keeps hosts apart for the same volume name', () => {
    const tracker = new DownloadTracker();
    tracker.start({ host: 'a', volume: 'v', urlHost: 'm', totalBytes: 1 });
    tracker.start({ host: 'b', volume: 'v', urlHost: 'm', totalBytes: 2 });
    expect(
      tracker
        .list()
        .map((p) => p.totalBytes)
        .sort(),
    ).toEqual([1, 2]);
  });
});
