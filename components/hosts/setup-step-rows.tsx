// The Add-host wizard's step rows: a step's state badge, its failure with the fix, its warnings,
// and the host key step's result (fingerprint, the command that prints it, trust, mismatch).
import type { ReactNode } from 'react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import type { HostKeyStep, StepFailure } from './setup-queries';

export function Failure({ failure }: { failure: StepFailure }) {
  return (
    <div role="alert" className="mt-2 space-y-1 rounded-md border border-red-300 bg-red-50 p-3 text-sm text-slate-900" data-testid="step-failure">
      <p>
        <span className="font-semibold">{failure.reason}: </span>
        <span className="break-words font-mono text-xs">{failure.message}</span>
      </p>
      <p className="whitespace-pre-wrap break-words">
        <span className="font-semibold">Fix: </span>
        {failure.fix}
      </p>
    </div>
  );
}

/** What works but should be fixed (a key file others may write), under the step's result. */
export function Warnings({ warnings }: { warnings: string[] | undefined }) {
  if (!warnings?.length) return null;
  return (
    <ul className="mt-2 space-y-1 rounded-md border border-amber-400 bg-amber-50 p-3 text-sm text-slate-900" data-testid="step-warnings">
      {warnings.map((warning) => (
        <li key={warning} className="break-words">
          {warning}
        </li>
      ))}
    </ul>
  );
}

export function StepRow({ title, testId, state, children }: { title: string; testId: string; state: 'pending' | 'ok' | 'failed'; children?: ReactNode }) {
  const badge = { pending: <Badge>Not run</Badge>, ok: <Badge tone="ok">OK</Badge>, failed: <Badge tone="error">Failed</Badge> }[state];
  return (
    <li className="rounded-md border border-slate-200 p-3" data-testid={testId} data-state={state}>
      <div className="flex items-center justify-between gap-2">
        <h3 className="text-sm font-semibold text-slate-900">{title}</h3>
        {badge}
      </div>
      {children}
    </li>
  );
}

export function HostKeyResult({ step, onTrust, trusting, trusted }: { step: HostKeyStep; onTrust: () => void; trusting: boolean; trusted: boolean }) {
  const key = step.hostKey;
  return (
    <div className="mt-2 space-y-2 text-sm">
      {key ? (
        <>
          <p className="break-all">
            {key.keyType}{' '}
            <span className="font-mono" data-testid="host-key-fingerprint">
              {key.fingerprint}
            </span>
          </p>
          <p className="break-words text-slate-700">
            Compare it with what the host prints: <code className="font-mono text-xs">{key.hostCommand}</code>
          </p>
        </>
      ) : null}
      {key?.standing === 'changed' ? (
        <div role="alert" className="rounded-md border border-amber-400 bg-amber-50 p-3" data-testid="host-key-mismatch">
          <p className="break-all font-semibold">Warning: this host key differs from the one known for this address ({key.knownFingerprint}).</p>
        </div>
      ) : null}
      {step.failure ? <Failure failure={step.failure} /> : null}
      <Warnings warnings={step.warnings} />
      {key?.standing === 'unknown' && !trusted ? (
        <Button tone="primary" onClick={onTrust} disabled={trusting}>
          The fingerprints match: trust this key
        </Button>
      ) : null}
      {key?.standing === 'known' || trusted ? <p className="text-emerald-800">The key is in the known_hosts file.</p> : null}
    </div>
  );
}
