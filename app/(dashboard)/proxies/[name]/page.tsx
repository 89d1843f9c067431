import type { Metadata } from 'next';
import { ProxyDetail } from '@/components/proxies/proxy-detail';
import { Breadcrumb } from '@/components/ui/breadcrumb';

// Next hands over the segment decoded once; decoding it again would turn `%25` into a URIError.
interface ProxyPageProps {
  params: Promise<{ name: string }>;
}

export async function generateMetadata({ params }: ProxyPageProps): Promise<Metadata> {
  const { name } = await params;
  return { title: `Proxy ${name}` };
}

export default async function ProxyPage({ params }: ProxyPageProps) {
  const { name } = await params;
  return (
    <>
      <Breadcrumb trail={[{ label: 'Proxies', href: '/proxies' }]} />
      <ProxyDetail name={name} />
    </>
  );
}
