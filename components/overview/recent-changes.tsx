'use client';
// The latest condition transitions across all Proxies, newest first: what changed lately.
import Link from 'next/link';
import { Badge } from '@/components/ui/badge';
import { formatTime } from '@/components/ui/format';
import { SkeletonRows } from '@/components/ui/skeleton';
import { useProxies } from '@/components/proxies/queries';

const shown = 10;

export function RecentChanges() {
  const proxies = useProxies();
  if (proxies.isPending) return <SkeletonRows rows={3} label="recent changes" />;
  const changes = (proxies.data ?? [])
    .flatMap((proxy) => proxy.status.conditions.map((condition) => ({ proxy: proxy.name, condition })))
    .filter(({ condition }) => Number.isFinite(Date.parse(condition.lastTransitionTime)))
    .sort((a, b) => Date.parse(b.condition.lastTransitionTime) - Date.parse(a.condition.lastTransitionTime))
    .slice(0, shown);
  if (changes.length === 0) return <p className="text-sm text-slate-600">Nothing has happened yet. Create a Proxy and its progress shows here.</p>;
  return (
    <ul className="divide-y divide-slate-100">
      {changes.map(({ proxy, condition }) => (
        <li key={`${proxy}/${condition.type}`} className="flex flex-wrap items-baseline gap-x-3 gap-y-1 py-2 text-sm">
          <time className="text-xs text-slate-600" dateTime={condition.lastTransitionTime}>
            {formatTime(condition.lastTransitionTime)}
          </time>
          <Link prefetch={false} href={`/proxies/${encodeURIComponent(proxy)}`} className="font-medium text-blue-800 underline-offset-2 hover:underline">
            {proxy}
          </Link>
          <span>
            {condition.type} <Badge tone={condition.status === 'True' ? 'ok' : condition.status === 'False' ? 'error' : 'neutral'}>{condition.status}</Badge>
          </span>
          <span className="min-w-0 flex-1 break-words text-slate-700">
            {condition.reason}
            {condition.message ? `: ${condition.message}` : ''}
          </span>
        </li>
      ))}
    </ul>
  );
}
