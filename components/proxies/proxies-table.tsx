'use client';
// The Proxies page body: `kubectl get px` as a live table with filters.
import Link from 'next/link';
import { useMemo, useState } from 'react';
import { proxyPhases, type ProxyView } from '@/lib/proxy-spec';
import { LinkButton } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';
import { ErrorPanel } from '@/components/ui/error-panel';
import { controlClass } from '@/components/ui/field';
import { formatAge } from '@/components/ui/format';
import { SkeletonRows } from '@/components/ui/skeleton';
import { TableScroll, Td, Th } from '@/components/ui/table';
import { applyFilters, noFilters, type ProxyFilters } from './filters';
import { HealthyBadge, PhaseBadge } from './phase-badge';
import { useProxies } from './queries';

function FilterBar({ filters, onChange, providers }: { filters: ProxyFilters; onChange: (next: ProxyFilters) => void; providers: string[] }) {
  const set = (key: keyof ProxyFilters) => (event: { target: { value: string } }) => onChange({ ...filters, [key]: event.target.value });
  const select = (key: 'phase' | 'provider' | 'mode', label: string, options: readonly string[]) => (
    <div>
      <label htmlFor={`filter-${key}`} className="block text-xs font-medium text-slate-700">
        {label}
      </label>
      <select id={`filter-${key}`} className={controlClass} value={filters[key]} onChange={set(key)}>
        <option value="">All</option>
        {options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    </div>
  );
  return (
    <div role="search" aria-label="Filter Proxies" className="mb-4 grid grid-cols-2 gap-3 lg:grid-cols-5">
      <div className="col-span-2 lg:col-span-1">
        <label htmlFor="filter-text" className="block text-xs font-medium text-slate-700">
          Name or IP
        </label>
        <input id="filter-text" type="search" className={controlClass} value={filters.text} onChange={set('text')} placeholder="proxy-" />
      </div>
      {select('phase', 'Phase', proxyPhases)}
      {select('provider', 'Provider', providers)}
      {select('mode', 'Mode', ['Managed', 'Static'])}
      <div className="lg:col-span-1">
        <label htmlFor="filter-labels" className="block text-xs font-medium text-slate-700">
          Labels
        </label>
        <input id="filter-labels" className={controlClass} value={filters.labels} onChange={set('labels')} placeholder="pool=crawl,region=eu" />
      </div>
    </div>
  );
}

function ProxyRow({ proxy, nowMs }: { proxy: ProxyView; nowMs: number }) {
  return (
    <tr data-testid={`proxy-row-${proxy.name}`}>
      <Td>
        <Link prefetch={false} href={`/proxies/${encodeURIComponent(proxy.name)}`} className="font-medium text-blue-800 underline-offset-2 hover:underline">
          {proxy.name}
        </Link>
      </Td>
      <Td>{proxy.mode}</Td>
      <Td>{proxy.provider ?? '—'}</Td>
      <Td>
        <PhaseBadge phase={proxy.status.phase} />
      </Td>
      <Td className="font-mono text-xs">{proxy.status.ip ?? proxy.address ?? ''}</Td>
      <Td>
        <HealthyBadge healthy={proxy.status.healthy} phase={proxy.status.phase} />
      </Td>
      <Td>{formatAge(proxy.createdAt, nowMs)}</Td>
    </tr>
  );
}

export function ProxiesTable() {
  const proxies = useProxies();
  const [filters, setFilters] = useState<ProxyFilters>(noFilters);
  const rows = useMemo(() => applyFilters(proxies.data ?? [], filters), [proxies.data, filters]);
  const providers = useMemo(() => [...new Set((proxies.data ?? []).map((proxy) => proxy.provider).filter((name): name is string => !!name))].sort(), [proxies.data]);
  if (proxies.isPending) return <SkeletonRows rows={8} label="Proxies" />;
  if (proxies.isError) return <ErrorPanel title="Could not load the Proxies" error={proxies.error} onRetry={() => void proxies.refetch()} />;
  if (proxies.data.length === 0) {
    return (
      <EmptyState title="No Proxies yet" action={<LinkButton href="/proxies/new" tone="primary">Create a Proxy</LinkButton>}>
        A Proxy is an egress proxy VM on one of your hosts. Pick a host, a machine type and an image; the Squid preset gives you a working proxy that only your networks may use.
      </EmptyState>
    );
  }
  // Ages are relative to the poll that brought the rows, so they tick with every refresh.
  const nowMs = proxies.dataUpdatedAt;
  return (
    <>
      <FilterBar filters={filters} onChange={setFilters} providers={providers} />
      <p className="mb-2 text-sm text-slate-600" aria-live="polite">
        {rows.length === proxies.data.length ? `${rows.length} ${rows.length === 1 ? 'Proxy' : 'Proxies'}` : `${rows.length} of ${proxies.data.length} Proxies match`}
      </p>
      <TableScroll label="Proxies">
        <thead className="bg-slate-50">
          <tr>
            <Th>Name</Th>
            <Th>Mode</Th>
            <Th>Provider</Th>
            <Th>Phase</Th>
            <Th>IP</Th>
            <Th>Healthy</Th>
            <Th>Age</Th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100" data-testid="proxies-body">
          {rows.map((proxy) => (
            <ProxyRow key={proxy.uid} proxy={proxy} nowMs={nowMs} />
          ))}
        </tbody>
      </TableScroll>
    </>
  );
}
