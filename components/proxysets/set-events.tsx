'use client';
// The set's own events (members made, replaced, deleted; budget; rollout), newest first.
import { ErrorPanel } from '@/components/ui/error-panel';
import { formatTime } from '@/components/ui/format';
import { SkeletonRows } from '@/components/ui/skeleton';
import { useProxySetEvents } from './queries';

export function SetEvents({ name }: { name: string }) {
  const events = useProxySetEvents(name);
  if (events.isPending) return <SkeletonRows rows={3} label="the set's events" />;
  if (events.isError) return <ErrorPanel title="Could not load the events" error={events.error} onRetry={() => void events.refetch()} />;
  if (events.data.length === 0) return <p className="text-sm text-slate-600">No events yet.</p>;
  return (
    <ol className="space-y-3" data-testid="set-events">
      {events.data.map((event) => (
        <li key={event.id} className={`border-l-4 pl-3 ${event.type === 'Warning' ? 'border-amber-500' : 'border-blue-600'}`}>
          <p className="text-sm">
            <span className={`font-semibold ${event.type === 'Warning' ? 'text-amber-900' : 'text-slate-900'}`}>{event.reason}</span>
            {event.count > 1 ? <span className="ml-2 text-xs text-slate-600">×{event.count}</span> : null}
            <time dateTime={event.lastAt} className="ml-2 text-xs text-slate-600">
              {formatTime(event.lastAt)}
            </time>
          </p>
          <p className="break-words text-sm text-slate-700">{event.message}</p>
        </li>
      ))}
    </ol>
  );
}
