import type { Metadata } from 'next';
import Link from 'next/link';
import { EditSetForm } from '@/components/proxysets/edit-set-form';
import { PageHeader } from '@/components/ui/panel';

interface EditSetPageProps {
  params: Promise<{ name: string }>;
}

export async function generateMetadata({ params }: EditSetPageProps): Promise<Metadata> {
  const { name } = await params;
  return { title: `Edit set ${name}` };
}

export default async function EditSetPage({ params }: EditSetPageProps) {
  const { name } = await params;
  return (
    <>
      <nav aria-label="Breadcrumb" className="mb-2 text-sm">
        <Link href="/sets" className="text-blue-800 underline underline-offset-2">
          Sets
        </Link>
        {' / '}
        <Link href={`/sets/${encodeURIComponent(name)}`} className="text-blue-800 underline underline-offset-2">
          {name}
        </Link>
      </nav>
      <PageHeader
        title={`Edit set ${name}`}
        description="Labels change in place; a template change replaces the members one surge at a time, never below the Ready count you allow. The form says which before you save."
      />
      <EditSetForm name={name} />
    </>
  );
}
