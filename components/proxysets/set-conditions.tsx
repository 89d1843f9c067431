'use client';
// A set's conditions (ReplacementsExhausted, Available) and the last replacements with the first
// failing step of each member's diagnosis: why the set stopped replacing, and what to fix.
import type { ProxySetView } from '@/lib/api/proxysets';
import { ConditionsTable } from '@/components/proxies/conditions-table';
import { formatTime } from '@/components/ui/format';

const shownReplacements = 5;

export function SetConditions({ set }: { set: ProxySetView }) {
  const exhausted = set.status.conditions.find((condition) => condition.type === 'ReplacementsExhausted' && condition.status === 'True');
  const last = set.status.replacements.slice(-shownReplacements).reverse();
  return (
    <div className="space-y-4">
      {exhausted ? (
        <div role="alert" className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-950">
          <p className="font-semibold">The set stopped replacing members: {exhausted.reason}</p>
          <p className="break-words">{exhausted.message}</p>
          <p className="mt-1">Fix the cause (the diagnoses below say where members fail), then Resume, or Edit the template.</p>
        </div>
      ) : null}
      <ConditionsTable conditions={set.status.conditions} goodWhenFalse={['ReplacementsExhausted']} />
      <div>
        <h3 className="text-sm font-semibold text-slate-900">Last replacements</h3>
        {last.length === 0 ? (
          <p className="text-sm text-slate-600">None: no member has been replaced for failing.</p>
        ) : (
          <ul className="mt-1 space-y-1 text-sm" data-testid="set-replacements">
            {last.map((replacement) => (
              <li key={`${replacement.member}-${replacement.at}`}>
                <span className="font-mono">{replacement.member}</span> ({replacement.cause === 'Failed' ? 'Failed' : 'not Ready in time'}) at{' '}
                {formatTime(replacement.at)}: first failure <strong>{replacement.firstFailure ?? 'none found'}</strong>
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}
