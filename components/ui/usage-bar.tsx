// Free versus total as a bar, exposed to assistive technology as a meter with the figures in words.

export interface UsageBarProps {
  label: string;
  /** how much is used, in any unit */
  used: number;
  total: number;
  /** what screen readers hear and what is printed under the bar */
  text: string;
}

function toneFor(fraction: number): string {
  if (fraction >= 0.9) return 'bg-red-600';
  if (fraction >= 0.75) return 'bg-amber-500';
  return 'bg-emerald-600';
}

export function UsageBar({ label, used, total, text }: UsageBarProps) {
  const fraction = total > 0 ? Math.min(1, Math.max(0, used / total)) : 0;
  return (
    <div>
      <div
        role="meter"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(fraction * 100)}
        aria-valuetext={text}
        className="h-2.5 w-full overflow-hidden rounded-full bg-slate-200"
      >
        <div className={`h-full rounded-full ${toneFor(fraction)}`} style={{ width: `${(fraction * 100).toFixed(1)}%` }} />
      </div>
      <p className="mt-1 text-xs text-slate-600">{text}</p>
    </div>
  );
}
