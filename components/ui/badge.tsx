// A small coloured label. The tone carries the meaning; the text always says it too, so colour is
// never the only signal.
import type { ReactNode } from 'react';

export type BadgeTone = 'ok' | 'warning' | 'error' | 'info' | 'neutral';

const tones: Record<BadgeTone, string> = {
  ok: 'bg-emerald-100 text-emerald-900 ring-emerald-300',
  warning: 'bg-amber-100 text-amber-900 ring-amber-300',
  error: 'bg-red-100 text-red-900 ring-red-300',
  info: 'bg-blue-100 text-blue-900 ring-blue-300',
  neutral: 'bg-slate-100 text-slate-800 ring-slate-300',
};

export function Badge({ tone = 'neutral', children }: { tone?: BadgeTone; children: ReactNode }) {
  return (
    <span className={`inline-flex items-center whitespace-nowrap rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${tones[tone]}`}>
      {children}
    </span>
  );
}
