'use client';
// Key/value rows for a Proxy's labels; crawler clients select proxies by them.
import { Button } from '@/components/ui/button';
import { controlClass } from '@/components/ui/field';

export interface LabelRow {
  id: number;
  key: string;
  value: string;
}

export function labelsFromRows(rows: LabelRow[]): Record<string, string> {
  return Object.fromEntries(rows.filter((row) => row.key.trim() !== '' || row.value.trim() !== '').map((row) => [row.key.trim(), row.value.trim()]));
}

export function LabelsEditor({ rows, onChange, error }: { rows: LabelRow[]; onChange: (rows: LabelRow[]) => void; error?: string }) {
  const update = (id: number, patch: Partial<LabelRow>) => onChange(rows.map((row) => (row.id === id ? { ...row, ...patch } : row)));
  const nextId = rows.reduce((max, row) => Math.max(max, row.id), 0) + 1;
  return (
    <fieldset className="space-y-2" aria-describedby={error ? 'labels-error' : 'labels-hint'}>
      <legend className="sr-only">Labels</legend>
      <p id="labels-hint" className="text-xs text-slate-600">
        Crawler clients ask the discovery API for proxies by label, e.g. <code>pool=crawl</code>.
      </p>
      {rows.map((row, index) => (
        <div key={row.id} className="flex flex-wrap items-center gap-2">
          <input
            aria-label={`Label ${index + 1} key`}
            className={`${controlClass} min-w-0 flex-1`}
            value={row.key}
            placeholder="key"
            onChange={(event) => update(row.id, { key: event.target.value })}
            aria-invalid={error ? true : undefined}
          />
          <span aria-hidden="true">=</span>
          <input
            aria-label={`Label ${index + 1} value`}
            className={`${controlClass} min-w-0 flex-1`}
            value={row.value}
            placeholder="value"
            onChange={(event) => update(row.id, { value: event.target.value })}
            aria-invalid={error ? true : undefined}
          />
          <Button tone="ghost" onClick={() => onChange(rows.filter((other) => other.id !== row.id))}>
            Remove<span className="sr-only"> label {index + 1}</span>
          </Button>
        </div>
      ))}
      {error ? (
        <p id="labels-error" className="text-sm text-red-700">
          {error}
        </p>
      ) : null}
      <Button onClick={() => onChange([...rows, { id: nextId, key: '', value: '' }])}>Add label</Button>
    </fieldset>
  );
}
