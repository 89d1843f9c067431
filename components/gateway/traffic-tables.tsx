// The gateway's live traffic as GET /api/gateway gives it: totals, per Proxy (linked to its page),
// per gateway token, the busiest sticky sessions. Presentational: the page passes the view in.
import Link from 'next/link';
import type { GatewayView } from '@/lib/api/gateway';
import { EmptyState } from '@/components/ui/empty-state';
import { formatBytes } from '@/components/ui/format';
import { Panel } from '@/components/ui/panel';
import { type Column, Table, Td } from '@/components/ui/table';
import { byName, failureSummary, gatewayTotals } from './traffic-model';

const proxyLink = (name: string) => (
  <Link prefetch={false} href={`/proxies/${encodeURIComponent(name)}`} className="font-medium text-blue-800 underline underline-offset-2">
    {name}
  </Link>
);

function Tile({ label, value, hint }: { label: string; value: string; hint: string }) {
  return (
    <div className="min-w-0 rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <p className="text-xs font-medium uppercase tracking-wide text-slate-600">{label}</p>
      <p className="mt-1 text-2xl font-semibold text-slate-900">{value}</p>
      <p className="mt-1 text-xs text-slate-600">{hint}</p>
    </div>
  );
}

export function GatewayTotalsTiles({ view }: { view: GatewayView }) {
  const totals = gatewayTotals(view);
  return (
    <div className="grid grid-cols-2 gap-4 lg:grid-cols-4" data-testid="gateway-totals">
      <Tile label="Bytes in" value={formatBytes(totals.bytesIn)} hint="from the proxies to the crawlers" />
      <Tile label="Bytes out" value={formatBytes(totals.bytesOut)} hint="from the crawlers to the proxies" />
      <Tile label="Open tunnels" value={String(totals.open)} hint="connections open now" />
      <Tile label="Tunnels" value={String(totals.tunnels)} hint="connections made, every replica together" />
    </div>
  );
}

/** The four traffic columns every table shares. */
const trafficColumns: Column[] = ['Open', 'Tunnels', 'In', 'Out'].map((title) => ({ title, className: 'text-right' }));

const trafficCells = (row: { open: number; tunnels: number; bytesIn: number; bytesOut: number }) => (
  <>
    <Td className="text-right tabular-nums">{row.open}</Td>
    <Td className="text-right tabular-nums">{row.tunnels}</Td>
    <Td className="text-right tabular-nums">{formatBytes(row.bytesIn)}</Td>
    <Td className="text-right tabular-nums">{formatBytes(row.bytesOut)}</Td>
  </>
);

const noTraffic = <EmptyState title="No traffic yet">Point a crawler at the URL above: its connections show here within seconds, while they run.</EmptyState>;

export function GatewayTraffic({ view }: { view: GatewayView }) {
  return (
    <div className="space-y-6">
      <GatewayTotalsTiles view={view} />
      <Panel title="Traffic per Proxy" headingLevel={3}>
        {view.proxies.length === 0 ? (
          noTraffic
        ) : (
          <Table label="Gateway traffic per Proxy" columns={['Proxy', ...trafficColumns, 'Failures']}>
            {byName(view.proxies, (row) => row.proxy).map((row) => (
              <tr key={row.proxy}>
                <Td>{proxyLink(row.proxy)}</Td>
                {trafficCells(row)}
                <Td>{failureSummary(row.failures)}</Td>
              </tr>
            ))}
          </Table>
        )}
      </Panel>
      <div className="space-y-6">
        <Panel title="Traffic per gateway token" headingLevel={3}>
          {view.tokens.length === 0 ? (
            <p className="text-sm text-slate-600">No token has opened a connection yet.</p>
          ) : (
            <Table label="Gateway traffic per token" columns={['Token', ...trafficColumns]}>
              {byName(view.tokens, (row) => row.name ?? row.token).map((row) => (
                <tr key={row.token}>
                  <Td className="font-medium">{row.name ?? <span className="text-slate-600">{row.token} (revoked)</span>}</Td>
                  {trafficCells(row)}
                </tr>
              ))}
            </Table>
          )}
        </Panel>
        <Panel title="Busiest sessions" headingLevel={3}>
          {view.sessions.length === 0 ? (
            <p className="text-sm text-slate-600">
              No sticky session yet: a username with <code className="font-mono">-session-&lt;id&gt;</code> keeps its proxy and shows here.
            </p>
          ) : (
            <Table label="Busiest sticky sessions" columns={['Session', 'Proxy', ...trafficColumns]}>
              {view.sessions.map((row) => (
                <tr key={row.session}>
                  <Td className="font-mono text-xs">{row.session}</Td>
                  <Td>{proxyLink(row.proxy)}</Td>
                  {trafficCells(row)}
                </tr>
              ))}
            </Table>
          )}
        </Panel>
      </div>
    </div>
  );
}
