'use client';
// The Gateway page's body: loading, error, off, or the way to connect a crawler, the username
// grammar, the live traffic and the last refusals (refetched on the live feed, polled every 5 s).
import { ErrorPanel } from '@/components/ui/error-panel';
import { Panel } from '@/components/ui/panel';
import { SkeletonCards } from '@/components/ui/skeleton';
import { ConnectPanel } from './connect-panel';
import { GatewayOff } from './gateway-off';
import { GrammarTable } from './grammar-table';
import { useGateway } from './queries';
import { RefusalsTable } from './refusals-table';
import { GatewayTraffic } from './traffic-tables';

export function GatewayPage() {
  const gateway = useGateway();
  if (gateway.isPending) return <SkeletonCards cards={2} label="the gateway" />;
  if (gateway.isError) return <ErrorPanel title="Could not load the gateway" error={gateway.error} onRetry={() => void gateway.refetch()} />;
  const view = gateway.data;
  const grammar = (
    <Panel title="Username grammar">
      <GrammarTable />
    </Panel>
  );
  if (!view.enabled)
    return (
      <div className="space-y-6">
        <GatewayOff />
        {grammar}
      </div>
    );
  return (
    <div className="space-y-6">
      {!view.listening && (
        <Panel title="The gateway is not listening">
          <p role="alert" className="text-sm text-red-800">
            {view.error}
          </p>
        </Panel>
      )}
      <ConnectPanel view={view} />
      {grammar}
      <section aria-labelledby="gateway-traffic-heading" className="space-y-4">
        <h2 id="gateway-traffic-heading" className="text-lg font-semibold text-slate-900">
          Live traffic
        </h2>
        <GatewayTraffic view={view} />
      </section>
      <Panel title="Last refusals">
        <RefusalsTable refusals={view.refusals} />
      </Panel>
    </div>
  );
}
