// Every domain on a host and whose it is: ours with its Proxy, ours but orphaned, the first-
// generation provider's, or someone else's.
import Link from 'next/link';
import { memo } from 'react';
import { DomainActivity, type DomainActivitySeries } from '@/components/stats/domain-activity';
import { Badge, type BadgeTone } from '@/components/ui/badge';
import { EmptyState } from '@/components/ui/empty-state';
import { TableHead, TableScroll, Td } from '@/components/ui/table';
import type { DomainKind, DomainView } from './queries';

const kindLabel: Record<DomainKind, { text: string; tone: BadgeTone; title: string }> = {
  managed: { text: 'managed', tone: 'ok', title: 'created by this server for a Proxy' },
  orphaned: { text: 'orphan', tone: 'warning', title: 'created by this server, but no Proxy owns it any more; orphan GC removes it' },
  'kvm-gen-1': { text: 'kvm gen-1', tone: 'info', title: "the first-generation kvm provider's domain; kvm2 never touches it" },
  foreign: { text: 'foreign', tone: 'neutral', title: 'not created by this server; left alone' },
};

interface DomainRowProps {
  domain: DomainView;
  /** whether the table has the usage column */
  withActivity: boolean;
  series: DomainActivitySeries | undefined;
}

// Memoised: a new stats answer changes the series of the domains that got a sample (unchanged ones
// keep theirs, see domainActivities), and only those rows render again; a thousand rows each with
// a link, a badge and two sparklines cost the host page most of a second to render all over.
const DomainRow = memo(function DomainRow({ domain, withActivity, series }: DomainRowProps) {
  const kind = kindLabel[domain.kind];
  return (
    <tr data-testid={`domain-row-${domain.name}`}>
      <Td className="font-mono text-xs">
        {domain.name}
        {domain.note ? <div className="whitespace-normal font-sans text-xs text-amber-900">{domain.note}</div> : null}
      </Td>
      <Td>{domain.state}</Td>
      <Td title={kind.title}>
        <Badge tone={kind.tone}>{kind.text}</Badge>
      </Td>
      <Td>
        {domain.proxy ? (
          <Link prefetch={false} href={`/proxies/${encodeURIComponent(domain.proxy)}`} className="text-blue-800 underline underline-offset-2">
            {domain.proxy}
          </Link>
        ) : (
          '—'
        )}
      </Td>
      <Td className="font-mono text-xs">{domain.ip ?? '—'}</Td>
      {withActivity ? (
        <Td>
          <DomainActivity domain={domain.name} series={series} />
        </Td>
      ) : null}
    </tr>
  );
});

/** `activities`: each domain's CPU and traffic series, shown as sparklines in a usage column when given. */
export function DomainsTable({ domains, activities }: { domains: DomainView[]; activities?: ReadonlyMap<string, DomainActivitySeries> }) {
  if (domains.length === 0) return <EmptyState title="No domains on this host">Create a Proxy with this host as its zone and its VM appears here.</EmptyState>;
  return (
    <TableScroll label="Domains">
      <TableHead columns={['Domain', 'State', 'Kind', 'Proxy', 'IP', ...(activities ? ['Last hour'] : [])]} />
      <tbody className="divide-y divide-slate-100">
        {domains.map((domain) => (
          <DomainRow key={domain.name} domain={domain} withActivity={activities !== undefined} series={activities?.get(domain.name)} />
        ))}
      </tbody>
    </TableScroll>
  );
}
