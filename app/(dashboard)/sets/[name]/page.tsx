import type { Metadata } from 'next';
import Link from 'next/link';
import { SetDetail } from '@/components/proxysets/set-detail';

// Next hands over the segment decoded once; decoding it again would turn `%25` into a URIError.
interface SetPageProps {
  params: Promise<{ name: string }>;
}

export async function generateMetadata({ params }: SetPageProps): Promise<Metadata> {
  const { name } = await params;
  return { title: `Set ${name}` };
}

export default async function SetPage({ params }: SetPageProps) {
  const { name } = await params;
  return (
    <>
      <nav aria-label="Breadcrumb" className="mb-2 text-sm">
        <Link href="/sets" className="text-blue-800 underline underline-offset-2">
          Sets
        </Link>
      </nav>
      <SetDetail name={name} />
    </>
  );
}
