import type { Metadata } from 'next';
import { CreateSetForm } from '@/components/proxysets/create-set-form';
import { PageHeader } from '@/components/ui/panel';
import { Breadcrumb } from '@/components/ui/breadcrumb';

export const metadata: Metadata = { title: 'Create set' };

export default function NewSetPage() {
  return (
    <>
      <Breadcrumb trail={[{ label: 'Sets', href: '/sets' }]} />
      <PageHeader title="Create set" description="N Proxies from one template, spread over your hosts and kept at N." />
      <CreateSetForm />
    </>
  );
}
