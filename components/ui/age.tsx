'use client';
// An age ("5m", "3d") that ticks on its own: every Age on the page reads one shared clock, so a row
// showing one needs no "now" from its parent, and a data update re-renders only the rows it changed.
import { useSyncExternalStore } from 'react';
import { formatAge } from './format';

const tickMs = 10_000;
const listeners = new Set<() => void>();
let nowMs = Date.now();
let timer: ReturnType<typeof setInterval> | undefined;

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  // After a while with no Age on the page the shared time is stale; React reads it again after subscribing.
  if (timer === undefined) nowMs = Date.now();
  timer ??= setInterval(() => {
    nowMs = Date.now();
    for (const notify of listeners) notify();
  }, tickMs);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

const now = () => nowMs;

/** The shared clock's time (epoch ms), re-rendering the caller every tick. */
export function useNow(): number {
  return useSyncExternalStore(subscribe, now, now);
}

export function Age({ since }: { since: string | undefined }) {
  return <>{formatAge(since, useNow())}</>;
}
