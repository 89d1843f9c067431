import type { Metadata } from 'next';
import Link from 'next/link';
import { ProxyDetail } from '@/components/proxies/proxy-detail';

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
      <nav aria-label="Breadcrumb" className="mb-2 text-sm">
        <Link href="/proxies" className="text-blue-800 underline underline-offset-2">
          Proxies
        </Link>
      </nav>
      <ProxyDetail name={name} />
    </>
  );
}
