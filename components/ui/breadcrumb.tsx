// The trail above a detail page's header: each step but the current page links back.
import Link from 'next/link';
import { Fragment } from 'react';

export interface BreadcrumbStep {
  label: string;
  /** absent for a step that is not a page of its own (a provider's name) */
  href?: string;
}

export function Breadcrumb({ trail }: { trail: BreadcrumbStep[] }) {
  return (
    <nav aria-label="Breadcrumb" className="mb-2 text-sm">
      {trail.map((step, index) => (
        <Fragment key={`${index}-${step.label}`}>
          {index > 0 ? (
            <span aria-hidden="true" className="mx-1 text-slate-500">
              /
            </span>
          ) : null}
          {step.href ? (
            <Link href={step.href} className="text-blue-800 underline underline-offset-2">
              {step.label}
            </Link>
          ) : (
            <span className="text-slate-700">{step.label}</span>
          )}
        </Fragment>
      ))}
    </nav>
  );
}
