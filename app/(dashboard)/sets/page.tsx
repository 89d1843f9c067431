import type { Metadata } from 'next';
import { SetsTable } from '@/components/proxysets/sets-table';
import { LinkButton } from '@/components/ui/button';
import { PageHeader } from '@/components/ui/panel';

export const metadata: Metadata = { title: 'Sets' };

export default function SetsPage() {
  return (
    <>
      <PageHeader
        title="Sets"
        description="Ask for N proxies and get N Ready ones spread over your hosts, kept at N; updated live."
        actions={
          <LinkButton href="/sets/new" tone="primary">
            Create set
          </LinkButton>
        }
      />
      <SetsTable />
    </>
  );
}
