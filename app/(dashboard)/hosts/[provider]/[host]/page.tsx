import type { Metadata } from 'next';
import { HostDetail } from '@/components/hosts/host-detail';
import { PageHeader } from '@/components/ui/panel';
import { Breadcrumb } from '@/components/ui/breadcrumb';

// Next hands over the segments decoded once; decoding them again would turn `%25` into a URIError.
interface HostPageProps {
  params: Promise<{ provider: string; host: string }>;
}

export async function generateMetadata({ params }: HostPageProps): Promise<Metadata> {
  const { host } = await params;
  return { title: `Host ${host}` };
}

export default async function HostPage({ params }: HostPageProps) {
  const { provider: providerName, host: hostName } = await params;
  return (
    <>
      <Breadcrumb trail={[{ label: 'Hosts', href: '/hosts' }, { label: providerName }]} />
      <PageHeader title={hostName} description={`Storage pools, cached base images and domains on ${hostName} (provider ${providerName}).`} />
      <HostDetail provider={providerName} host={hostName} />
    </>
  );
}
