import type { Metadata } from 'next';
import { EditSetForm } from '@/components/proxysets/edit-set-form';
import { PageHeader } from '@/components/ui/panel';
import { Breadcrumb } from '@/components/ui/breadcrumb';

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
      <Breadcrumb
        trail={[
          { label: 'Sets', href: '/sets' },
          { label: name, href: `/sets/${encodeURIComponent(name)}` },
        ]}
      />
      <PageHeader
        title={`Edit set ${name}`}
        description="Labels change in place; a template change replaces the members one surge at a time, never below the Ready count you allow. The form says which before you save."
      />
      <EditSetForm name={name} />
    </>
  );
}
