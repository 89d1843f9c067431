'use client';
// The three windows the stats history keeps: 1 hour of 10 s points, 24 hours of minutes, 7 days of
// ten minutes.
import { statsWindows, type StatsWindowName } from '@/lib/api/stats';

const labels: Record<StatsWindowName, string> = { '1h': '1 h', '24h': '24 h', '7d': '7 d' };

export function WindowPicker({ value, onChange }: { value: StatsWindowName; onChange: (window: StatsWindowName) => void }) {
  return (
    <div role="group" aria-label="Time window" className="inline-flex overflow-hidden rounded-md border border-slate-300">
      {statsWindows.map((window) => (
        <button
          key={window}
          type="button"
          aria-pressed={value === window}
          onClick={() => onChange(window)}
          className={`px-2.5 py-1 text-xs font-medium ${value === window ? 'bg-blue-700 text-white' : 'bg-white text-slate-700 hover:bg-slate-50'}`}
        >
          {labels[window]}
        </button>
      ))}
    </div>
  );
}
