import type { Metadata } from 'next';
import { ProxiesTable } from '@/components/proxies/proxies-table';
import { LinkButton } from '@/components/ui/button';
import { PageHeader } from '@/components/ui/panel';

export const metadata: Metadata = { title: 'Proxies' };

export default function ProxiesPage() {
  return (
    <>
      <PageHeader
        title="Proxies"
        description="Every Proxy with its phase, address and health, updated live."
        actions={
          <LinkButton href="/proxies/new" tone="primary">
            Create Proxy
          </LinkButton>
        }
      />
      <ProxiesTable />
    </>
  );
}
