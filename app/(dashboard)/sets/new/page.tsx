import type { Metadata } from 'next';
import Link from 'next/link';
import { CreateSetForm } from '@/components/proxysets/create-set-form';
import { PageHeader } from '@/components/ui/panel';

export const metadata: Metadata = { title: 'Create set' };

export default function NewSetPage() {
  return (
    <>
      <nav aria-label="Breadcrumb" className="mb-2 text-sm">
        <Link href="/sets" className="text-blue-800 underline underline-offset-2">
          Sets
        </Link>
      </nav>
      <PageHeader title="Create set" description="N Proxies from one template, spread over your hosts and kept at N." />
      <CreateSetForm />
    </>
  );
}
