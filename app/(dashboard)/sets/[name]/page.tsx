import type { Metadata } from 'next';
import { SetDetail } from '@/components/proxysets/set-detail';
import { Breadcrumb } from '@/components/ui/breadcrumb';

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
      <Breadcrumb trail={[{ label: 'Sets', href: '/sets' }]} />
      <SetDetail name={name} />
    </>
  );
}
