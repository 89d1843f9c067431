// Placeholders shown while a panel's data loads, shaped like what will replace them. Screen readers
// hear one "Loading …" per panel instead of the grey shapes.
import type { ReactNode } from 'react';

export function SkeletonBlock({ className = '' }: { className?: string }) {
  return <div aria-hidden="true" className={`animate-pulse rounded bg-slate-200 ${className}`} />;
}

export function LoadingRegion({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div role="status" aria-busy="true" aria-live="polite">
      <span className="sr-only">Loading {label}…</span>
      {children}
    </div>
  );
}

export function SkeletonRows({ rows = 5, label }: { rows?: number; label: string }) {
  return (
    <LoadingRegion label={label}>
      <div className="space-y-2">
        {Array.from({ length: rows }, (_, index) => (
          <SkeletonBlock key={index} className="h-9 w-full" />
        ))}
      </div>
    </LoadingRegion>
  );
}

export function SkeletonCards({ cards = 2, label }: { cards?: number; label: string }) {
  return (
    <LoadingRegion label={label}>
      <div className="grid gap-4 md:grid-cols-2">
        {Array.from({ length: cards }, (_, index) => (
          <div key={index} className="space-y-3 rounded-lg border border-slate-200 bg-white p-4">
            <SkeletonBlock className="h-5 w-1/3" />
            <SkeletonBlock className="h-4 w-2/3" />
            <SkeletonBlock className="h-3 w-full" />
            <SkeletonBlock className="h-24 w-full" />
          </div>
        ))}
      </div>
    </LoadingRegion>
  );
}

export function SkeletonChart({ label }: { label: string }) {
  return (
    <LoadingRegion label={label}>
      <SkeletonBlock className="h-48 w-full" />
    </LoadingRegion>
  );
}
