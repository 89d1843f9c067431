'use client';
// A Proxy's events, newest first, as a timeline; warnings stand out.
import { ErrorPanel } from '@/components/ui/error-panel';
import { formatTime } from '@/components/ui/format';
import { SkeletonRows } from '@/components/ui/skeleton';
import { useProxyEvents } from './queries';

export function EventsTimeline({ name }: { name: string }) {
  const events = useProxyEvents(name);
  if (events.isPending) return <SkeletonRows rows={3} label="events" />;
  if (events.isError) return <ErrorPanel title="Could not load the events" error={events.error} onRetry={() => void events.refetch()} />;
  if (events.data.length === 0) return <p className="text-sm text-slate-600">No events yet.</p>;
  const newestFirst = [...events.data].sort((a, b) => Date.parse(b.lastAt) - Date.parse(a.lastAt) || b.id - a.id);
  return (
    <ol className="relative space-y-4 border-l border-slate-300 pl-5">
      {newestFirst.map((event) => (
        <li key={event.id} className="relative">
          <span
            aria-hidden="true"
            className={`absolute -left-[1.65rem] top-1.5 h-2.5 w-2.5 rounded-full ring-2 ring-white ${event.type === 'Warning' ? 'bg-amber-500' : 'bg-blue-600'}`}
          />
          <p className="text-sm">
            <span className={`font-semibold ${event.type === 'Warning' ? 'text-amber-900' : 'text-slate-900'}`}>{event.reason}</span>
            {event.type === 'Warning' ? <span className="ml-2 text-xs font-medium text-amber-900">(warning)</span> : null}
            {event.count > 1 ? <span className="ml-2 text-xs text-slate-600">×{event.count}</span> : null}
          </p>
          <p className="break-words text-sm text-slate-700">{event.message}</p>
          <p className="text-xs text-slate-600">
            <time dateTime={event.lastAt}>{formatTime(event.lastAt)}</time>
            {event.count > 1 ? <> (first {formatTime(event.firstAt)})</> : null}
          </p>
        </li>
      ))}
    </ol>
  );
}
