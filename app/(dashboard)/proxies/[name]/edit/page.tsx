import type { Metadata } from 'next';
import { EditProxyForm } from '@/components/proxies/edit-form';
import { PageHeader } from '@/components/ui/panel';
import { Breadcrumb } from '@/components/ui/breadcrumb';

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
      <Breadcrumb
        trail={[
          { label: 'Proxies', href: '/proxies' },
          { label: name, href: `/proxies/${encodeURIComponent(name)}` },
        ]}
      />
      <PageHeader
        title={`Edit ${name}`}
        description="Labels change in place; a change to anything else replaces the VM. The form says which before you save."
      />
      <EditProxyForm name={name} />
    </>
  );
}
