import type { Metadata } from 'next';
import { GatewayPage } from '@/components/gateway/gateway-page';
import { PageHeader } from '@/components/ui/panel';

export const metadata: Metadata = { title: 'Gateway' };

export default function GatewayRoute() {
  return (
    <>
      <PageHeader
        title="Gateway"
        description="One proxy URL for the whole fleet: every new connection goes through a Ready proxy, sticky per session when asked. Traffic updates live while it flows."
      />
      <GatewayPage />
    </>
  );
}
