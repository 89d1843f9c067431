import type { Metadata } from 'next';
import { CreateProxyForm } from '@/components/proxies/create-form';
import { PageHeader } from '@/components/ui/panel';

export const metadata: Metadata = { title: 'Create Proxy' };

export default function NewProxyPage() {
  return (
    <>
      <PageHeader title="Create Proxy" description="An egress proxy VM on one of your hosts. Choices with a single option are made for you." />
      <CreateProxyForm />
    </>
  );
}
