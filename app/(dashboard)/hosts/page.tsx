import type { Metadata } from 'next';
import { HostsOverview } from '@/components/hosts/hosts-overview';
import { PageHeader } from '@/components/ui/panel';

export const metadata: Metadata = { title: 'Hosts' };

export default function HostsPage() {
  return (
    <>
      <PageHeader title="Hosts" description="Every configured hypervisor with its latest health check, free pool space and history." />
      <HostsOverview />
    </>
  );
}
