'use client';
// One GET /api/events stream per tab (the signed-in pages share it): its messages update the query
// cache (live-cache.ts), and while it is connected the queries it keeps fresh stop polling. When it
// drops, the browser reconnects on its own (resuming from the last event id); after a refusal
// (a 401, a 429, the server gone) it is opened again later, and meanwhile the pages poll as before.
// The first stream resumes from the feed's head when the page rendered (`resumeFrom`), so the
// changes since are replayed rather than every query fetched again.
import { useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect, useState } from 'react';
import { type LiveMessage, liveMessageSchema } from '@/lib/api/live';
import { applyLiveMessages } from './live-cache';
import { LiveContext, useLive } from './live-status';

/** How long after a refused or failed stream it is opened again. */
const reopenAfterMs = 10_000;

export function LiveUpdates({ children, resumeFrom }: { children: ReactNode; resumeFrom?: string }) {
  const queryClient = useQueryClient();
  const [live, setLive] = useState(false);
  // The render's point only: a later render of the layout must not reopen the stream.
  const [renderedAt] = useState(resumeFrom);
  useEffect(() => {
    let source: EventSource | undefined;
    let reopenTimer: ReturnType<typeof setTimeout> | undefined;
    let flushTimer: ReturnType<typeof setTimeout> | undefined;
    let lastEventId = renderedAt;
    let pending: LiveMessage[] = [];
    // A burst (a probe round over many Proxies) is written to the cache in one go.
    const flush = () => {
      flushTimer = undefined;
      const batch = pending;
      pending = [];
      applyLiveMessages(queryClient, batch);
    };
    const open = () => {
      const url = lastEventId ? `/api/events?lastEventId=${encodeURIComponent(lastEventId)}` : '/api/events';
      const current = new EventSource(url);
      source = current;
      current.onmessage = (event: MessageEvent<string>) => {
        if (event.lastEventId) lastEventId = event.lastEventId;
        let parsed;
        try {
          parsed = liveMessageSchema.safeParse(JSON.parse(event.data));
        } catch {
          return;
        }
        if (!parsed.success) return;
        if (parsed.data.kind === 'ready') setLive(true);
        pending.push(parsed.data);
        flushTimer ??= setTimeout(flush, 0);
      };
      current.onerror = () => {
        setLive(false);
        if (current.readyState !== EventSource.CLOSED) return;
        reopenTimer = setTimeout(open, reopenAfterMs);
      };
    };
    open();
    return () => {
      source?.close();
      clearTimeout(reopenTimer);
      clearTimeout(flushTimer);
    };
  }, [queryClient, renderedAt]);
  return <LiveContext.Provider value={live}>{children}</LiveContext.Provider>;
}

/** The header's word on how the page stays current. */
export function LiveIndicator() {
  const live = useLive();
  return (
    <span
      role="status"
      data-testid="live-indicator"
      title={live ? 'Changes arrive as they happen' : 'The live stream is down: the page refreshes every few seconds'}
      className="inline-flex items-center gap-1.5 rounded-md px-2 py-1 text-xs font-medium text-slate-200"
    >
      <span aria-hidden="true" className={`h-2 w-2 rounded-full ${live ? 'bg-emerald-400' : 'bg-amber-400'}`} />
      {live ? 'Live' : 'Polling'}
    </span>
  );
}
