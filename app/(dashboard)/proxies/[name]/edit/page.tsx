import type { Metadata } from 'next';
import Link from 'next/link';
import { EditProxyForm } from '@/components/proxies/edit-form';
import { PageHeader } from '@/components/ui/panel';

interface EditProxyPageProps {
  params: Promise<{ name: string }>;
}

export async function generateMetadata({ params }: EditProxyPageProps): Promise<Metadata> {
  const { name } = await params;
  return { title: `Edit Proxy ${name}` };
}

export default async function EditProxyPage({ params }: EditProxyPageProps) {
  const { name } = await params;
  return (
    <>
      <nav aria-label="Breadcrumb" className="mb-2 text-sm">
        <Link href="/proxies" className="text-blue-800 underline underline-offset-2">
          Proxies
        </Link>
        {' / '}
        <Link href={`/proxies/${encodeURIComponent(name)}`} className="text-blue-800 underline underline-offset-2">
          {name}
        </Link>
      </nav>
      <PageHeader
        title={`Edit ${name}`}
        description="Labels change in place; a change to anything else replaces the VM. The form says which before you save."
      />
      <EditProxyForm name={name} />
    </>
  );
}
