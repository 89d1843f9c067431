'use client';
// The Proxies table's "why?" next to the phase of a Proxy that has not been Ready for longer than
// the threshold (diagnosis-view.ts): a link to its diagnosis checklist. It reads the table's shared
// ticking clock, so it appears when the threshold passes without a data update.
import Link from 'next/link';
import type { ProxyView } from '@/lib/proxy-spec';
import { useNow } from '@/components/ui/age';
import { diagnosisHref, needsExplaining } from './diagnosis-view';

export function WhyNotReadyLink({ proxy }: { proxy: ProxyView }) {
  if (!needsExplaining(proxy, useNow())) return null;
  return (
    <Link
      prefetch={false}
      href={diagnosisHref(proxy.name)}
      className="ml-2 text-xs text-blue-800 underline underline-offset-2"
      aria-label={`why? ${proxy.name} is not Ready`}
    >
      why?
    </Link>
  );
}
