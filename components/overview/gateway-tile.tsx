'use client';
// The overview's gateway throughput: bytes in and out through the gateway and its open tunnels,
// from the Gateway page's own query. Nothing at all while the gateway is off (or not answering:
// the Gateway page says why).
import { LinkButton } from '@/components/ui/button';
import { formatBytes } from '@/components/ui/format';
import { Panel } from '@/components/ui/panel';
import { useGateway } from '@/components/gateway/queries';
import { gatewayTotals } from '@/components/gateway/traffic-model';

function Figure({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-600">{label}</dt>
      <dd className="mt-1 text-xl font-semibold text-slate-900">{value}</dd>
    </div>
  );
}

export function GatewayTile() {
  const gateway = useGateway();
  if (!gateway.data?.enabled) return null;
  const totals = gatewayTotals(gateway.data);
  return (
    <Panel title="Gateway" actions={<LinkButton href="/gateway">Gateway page</LinkButton>}>
      <dl className="grid grid-cols-2 gap-4 sm:grid-cols-3" data-testid="overview-gateway">
        <Figure label="Bytes in" value={formatBytes(totals.bytesIn)} />
        <Figure label="Bytes out" value={formatBytes(totals.bytesOut)} />
        <Figure label="Open tunnels" value={String(totals.open)} />
      </dl>
    </Panel>
  );
}
