import type { Metadata } from 'next';
import Link from 'next/link';
import { HostDetail } from '@/components/hosts/host-detail';
import { PageHeader } from '@/components/ui/panel';

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
      <nav aria-label="Breadcrumb" className="mb-2 text-sm">
        <Link href="/hosts" className="text-blue-800 underline underline-offset-2">
          Hosts
        </Link>
        <span aria-hidden="true" className="mx-1 text-slate-500">
          /
        </span>
        <span className="text-slate-700">{providerName}</span>
      </nav>
      <PageHeader title={hostName} description={`Storage pools, cached base images and domains on ${hostName} (provider ${providerName}).`} />
      <HostDetail provider={providerName} host={hostName} />
    </>
  );
}
