'use client';
// The Proxies page body: `kubectl get px` as a live table with filters. Only the rows in (or near)
// the window are in the DOM (TanStack Virtual over the page's own scroll); the table still says how
// many rows it has (aria-rowcount, aria-rowindex). Rows are keyed by uid and memoised: the live
// stream replaces one Proxy's object in the list, and only that row renders again. Rows can be
// selected for the bulk actions (bulk-actions.tsx); a set's page shows only its members.
import { measureElement, useWindowVirtualizer } from '@tanstack/react-virtual';
import Link from 'next/link';
import { lazy, memo, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { proxyPhases, type ProxyView } from '@/lib/proxy-spec';
import { proxySetLabel } from '@/lib/api/proxyset-label';
import { LinkButton } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';
import { ErrorPanel } from '@/components/ui/error-panel';
import { controlClass } from '@/components/ui/field';
import { Age } from '@/components/ui/age';
import { SkeletonRows } from '@/components/ui/skeleton';
import { TableScroll, Td, Th } from '@/components/ui/table';
import { applyFilters, noFilters, type ProxyFilters } from './filters';
import { HealthyBadge, PhaseBadge } from './phase-badge';
import { WhyNotReadyLink } from './why-not-ready-link';
import { useProxies } from './queries';

// The bulk bar shows nothing until rows are selected, and its code (the sets' replace and the
// Proxies' delete with their answers' schemas) is not needed to show the table: it loads at the
// first selection, not while the rows first render. It then stays mounted, for its outcome line.
// React.lazy, not next/dynamic: the bar never renders on the server, and next/dynamic's loader
// would put its own code (about 1.4 KB) in the first load.
const BulkActions = lazy(() => import('./bulk-actions').then((module) => ({ default: module.BulkActions })));

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

const columns = 8;
/** A row's height before it is measured (text-sm, py-2, a badge, the border): what Chromium lays out. */
const estimatedRowPx = 38;
/** Rows rendered beyond each edge of the window, so a scroll shows no gap before the next frame. */
const overscanRows = 12;

interface ProxyRowProps {
  proxy: ProxyView;
  /** its position in the filtered list */
  index: number;
  measure: (row: HTMLTableRowElement | null) => void;
  selected: boolean;
  onToggle: (name: string) => void;
}

const ProxyRow = memo(function ProxyRow({ proxy, index, measure, selected, onToggle }: ProxyRowProps) {
  return (
    // The header is row 1.
    <tr data-testid={`proxy-row-${proxy.name}`} data-index={index} aria-rowindex={index + 2} ref={measure} className={selected ? 'bg-blue-50' : undefined}>
      <Td className="w-8">
        <input
          type="checkbox"
          aria-label={`Select ${proxy.name}`}
          checked={selected}
          onChange={() => onToggle(proxy.name)}
          className="focus-visible:outline-2 focus-visible:outline-blue-600"
        />
      </Td>
      <Td>
        <Link prefetch={false} href={`/proxies/${encodeURIComponent(proxy.name)}`} className="font-medium text-blue-800 underline-offset-2 hover:underline">
          {proxy.name}
        </Link>
      </Td>
      <Td>{proxy.mode}</Td>
      <Td>{proxy.provider ?? '—'}</Td>
      <Td>
        <PhaseBadge phase={proxy.status.phase} />
        <WhyNotReadyLink proxy={proxy} />
      </Td>
      <Td className="font-mono text-xs">{proxy.status.ip ?? proxy.address ?? ''}</Td>
      <Td>
        <HealthyBadge healthy={proxy.status.healthy} phase={proxy.status.phase} />
      </Td>
      <Td>
        <Age since={proxy.createdAt} />
      </Td>
    </tr>
  );
});

/** Stands in for the rows not rendered above or below the window, so the page keeps its full height. */
function Spacer({ heightPx }: { heightPx: number }) {
  if (heightPx <= 0) return null;
  return (
    <tr aria-hidden="true">
      <td colSpan={columns} style={{ height: heightPx, padding: 0 }} />
    </tr>
  );
}

function ProxyRows({ rows, selected, onToggle }: { rows: ProxyView[]; selected: ReadonlySet<string>; onToggle: (name: string) => void }) {
  const body = useRef<HTMLTableSectionElement>(null);
  // Where the rows start on the page: the virtualiser counts the window's scroll from there. Read
  // when the body is first laid out and whenever its height changes (its number of rows; the count
  // above them may wrap), in a ResizeObserver's callback: it runs after the browser's own layout, so
  // the read forces none. Until then the rows are placed as if the body started at the top.
  const [scrollMargin, setScrollMargin] = useState(0);
  useEffect(() => {
    const element = body.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setScrollMargin(element.getBoundingClientRect().top + window.scrollY));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  const virtualizer = useWindowVirtualizer({
    count: rows.length,
    estimateSize: () => estimatedRowPx,
    overscan: overscanRows,
    scrollMargin,
    getItemKey: (index) => rows[index]?.uid ?? index,
    // A row's height as the virtualiser's ResizeObserver reports it after layout; while a row
    // mounts, its last known height (or the estimate), never its offsetHeight: reading that while
    // React commits the rows would force a layout of the page.
    measureElement: (row, entry, instance) =>
      entry
        ? measureElement(row, entry, instance)
        : (instance.itemSizeCache.get(instance.options.getItemKey(instance.indexFromElement(row))) ?? estimatedRowPx),
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0];
  const last = items.at(-1);
  return (
    <tbody ref={body} className="divide-y divide-slate-100" data-testid="proxies-body">
      <Spacer heightPx={first ? first.start - scrollMargin : 0} />
      {items.map((item) => (
        <ProxyRow
          key={item.key}
          proxy={rows[item.index] as ProxyView}
          index={item.index}
          measure={virtualizer.measureElement}
          selected={selected.has((rows[item.index] as ProxyView).name)}
          onToggle={onToggle}
        />
      ))}
      <Spacer heightPx={last ? virtualizer.getTotalSize() - (last.end - scrollMargin) : 0} />
    </tbody>
  );
}

/** The Proxies, or with `set` only that set's members (by its label). */
export function ProxiesTable({ set }: { set?: string } = {}) {
  const proxies = useProxies();
  const [filters, setFilters] = useState<ProxyFilters>(noFilters);
  const [selected, setSelectedState] = useState<ReadonlySet<string>>(() => new Set());
  const [bulkWanted, setBulkWanted] = useState(false);
  const setSelected: typeof setSelectedState = useCallback((next) => {
    setBulkWanted(true);
    setSelectedState(next);
  }, []);
  const onToggle = useCallback(
    (name: string) =>
      setSelected((previous) => {
        const next = new Set(previous);
        if (!next.delete(name)) next.add(name);
        return next;
      }),
    [setSelected],
  );
  const all = useMemo(
    () => (set === undefined ? (proxies.data ?? []) : (proxies.data ?? []).filter((proxy) => proxy.labels[proxySetLabel] === set)),
    [proxies.data, set],
  );
  const rows = useMemo(() => applyFilters(all, filters), [all, filters]);
  const providers = useMemo(() => [...new Set(all.map((proxy) => proxy.provider).filter((name): name is string => !!name))].sort(), [all]);
  // Only what is still listed counts as selected (a deleted Proxy leaves the selection by itself).
  const chosen = useMemo(() => all.filter((proxy) => selected.has(proxy.name)), [all, selected]);
  if (proxies.isPending) return <SkeletonRows rows={8} label="Proxies" />;
  if (proxies.isError) return <ErrorPanel title="Could not load the Proxies" error={proxies.error} onRetry={() => void proxies.refetch()} />;
  if (set !== undefined && all.length === 0) return <p className="text-sm text-slate-600">No members yet: the set controller creates them within seconds.</p>;
  if (proxies.data.length === 0) {
    return (
      <EmptyState
        title="No Proxies yet"
        action={
          <LinkButton href="/proxies/new" tone="primary">
            Create a Proxy
          </LinkButton>
        }
      >
        A Proxy is an egress proxy VM on one of your hosts. Pick a host, a machine type and an image; the Squid preset gives you a working proxy that only your
        networks may use.
      </EmptyState>
    );
  }
  return (
    <>
      <FilterBar filters={filters} onChange={setFilters} providers={providers} />
      <p className="mb-2 text-sm text-slate-600" aria-live="polite">
        {rows.length === all.length ? `${rows.length} ${rows.length === 1 ? 'Proxy' : 'Proxies'}` : `${rows.length} of ${all.length} Proxies match`}
      </p>
      {bulkWanted && (
        <Suspense fallback={null}>
          <BulkActions selected={chosen} onDone={() => setSelected(new Set())} />
        </Suspense>
      )}
      <TableScroll label="Proxies" rowCount={rows.length + 1}>
        <thead className="bg-slate-50">
          <tr aria-rowindex={1}>
            <Th className="w-8">
              <input
                type="checkbox"
                aria-label="Select every Proxy shown"
                checked={rows.length > 0 && rows.every((proxy) => selected.has(proxy.name))}
                onChange={(event) => setSelected(event.target.checked ? new Set(rows.map((proxy) => proxy.name)) : new Set())}
              />
            </Th>
            <Th>Name</Th>
            <Th>Mode</Th>
            <Th>Provider</Th>
            <Th>Phase</Th>
            <Th>IP</Th>
            <Th>Healthy</Th>
            <Th>Age</Th>
          </tr>
        </thead>
        <ProxyRows rows={rows} selected={selected} onToggle={onToggle} />
      </TableScroll>
    </>
  );
}
