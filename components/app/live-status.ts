'use client';
// Whether the tab's live event stream is connected, for the header's indicator and for the queries
// it keeps fresh: they poll only while it is down.
import { createContext, useContext } from 'react';

export const LiveContext = createContext(false);

export function useLive(): boolean {
  return useContext(LiveContext);
}

/** `intervalMs` while the event stream is down, no polling while it is up: for queries it keeps fresh. */
export function usePollInterval(intervalMs: number): number | false {
  return useLive() ? false : intervalMs;
}
