import type { Metadata } from 'next';
import { FleetSummary } from '@/components/overview/fleet-summary';
import { GatewayTile } from '@/components/overview/gateway-tile';
import { TrafficOverview } from '@/components/stats/traffic-overview';
import { PageHeader } from '@/components/ui/panel';

export const metadata: Metadata = { title: 'Overview' };

export default function OverviewPage() {
  return (
    <>
      <PageHeader title="Overview" description="Your hosts and Proxies at a glance. Everything here refreshes on its own." />
      <FleetSummary />
      <div className="mt-6 empty:hidden">
        <GatewayTile />
      </div>
      <div className="mt-6">
        <TrafficOverview />
      </div>
    </>
  );
}
