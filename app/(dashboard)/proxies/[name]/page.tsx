import type { Metadata } from 'next';
import Link from 'next/link';
import { ProxyDetail } from '@/components/proxies/proxy-detail';

interface ProxyPageProps {
  params: Promise<{ name: string }>;
}

export async function generateMetadata({ params }: ProxyPageProps): Promise<Metadata> {
  const { name } = await params;
  return { title: `Proxy ${decodeURIComponent(name)}` };
}

export default async function ProxyPage({ params }: ProxyPageProps) {
  const { name } = await params;
  return (
    <>
      <nav aria-label="Breadcrumb" className="mb-2 text-sm">
        <Link href="/proxies" className="text-blue-800 underline underline-offset-2">
          Proxies
        </Link>
      </nav>
      <ProxyDetail name={decodeURIComponent(name)} />
    </>
  );
}
