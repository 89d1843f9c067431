'use client';
// "Why isn't my Proxy Ready?": the diagnosis checklist (GET /api/proxies/{name}/diagnosis), failing
// steps first, each with what was seen and what to do next, and a button to run it again. It runs
// by itself for a Proxy that is not Ready; for a Ready one, when asked.
import { useEffect, useRef } from 'react';
import type { DiagnosisStatus, DiagnosisStep } from '@/lib/api/diagnosis';
import type { ProxyView } from '@/lib/proxy-spec';
import { Badge, type BadgeTone } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { ErrorPanel } from '@/components/ui/error-panel';
import { formatTime } from '@/components/ui/format';
import { Panel } from '@/components/ui/panel';
import { SkeletonRows } from '@/components/ui/skeleton';
import { diagnosisAnchor, failingFirst } from './diagnosis-view';
import { useDiagnosisRun } from './queries';

const statusLook: Record<DiagnosisStatus, { label: string; tone: BadgeTone }> = {
  pass: { label: 'Pass', tone: 'ok' },
  fail: { label: 'Fail', tone: 'error' },
  unknown: { label: 'Unknown', tone: 'warning' },
  skipped: { label: 'Skipped', tone: 'neutral' },
};

function StepItem({ step }: { step: DiagnosisStep }) {
  const look = statusLook[step.status];
  const failing = step.status === 'fail';
  return (
    <li
      data-testid={`diagnosis-step-${step.id}`}
      data-status={step.status}
      className={`rounded-md border p-3 ${failing ? 'border-red-300 bg-red-50' : 'border-slate-200'}`}
    >
      <div className="flex flex-wrap items-center gap-2">
        <Badge tone={look.tone}>{look.label}</Badge>
        <span className="font-medium text-slate-900">{step.title}</span>
        <span className="text-xs text-slate-600">{step.durationMs} ms</span>
      </div>
      <p className="mt-1 break-words text-sm text-slate-800">{step.evidence}</p>
      {step.next ? (
        <p className="mt-1 break-words text-sm text-slate-900">
          <span className="font-semibold">Next: </span>
          {step.next}
        </p>
      ) : null}
    </li>
  );
}

export function DiagnosisChecklist({ proxy }: { proxy: ProxyView }) {
  const diagnosis = useDiagnosisRun(proxy.name);
  const { mutate } = diagnosis;
  const autoRun = proxy.status.phase !== 'Ready';
  const ran = useRef(false);
  useEffect(() => {
    if (!autoRun || ran.current) return;
    ran.current = true;
    mutate();
  }, [autoRun, mutate]);
  const run = (
    <Button onClick={() => mutate()} disabled={diagnosis.isPending}>
      {diagnosis.isPending ? 'Running…' : diagnosis.isIdle ? 'Run diagnosis' : 'Run again'}
    </Button>
  );
  return (
    <div id={diagnosisAnchor} className="scroll-mt-4">
      <Panel title="Diagnosis" actions={run}>
        {diagnosis.isIdle && !autoRun ? (
          <p className="text-sm text-slate-700">The Proxy is Ready. Run the diagnosis to see every step from the host to the egress IP.</p>
        ) : diagnosis.isIdle || diagnosis.isPending ? (
          <SkeletonRows rows={4} label="the diagnosis" />
        ) : diagnosis.isError ? (
          <ErrorPanel title="Could not run the diagnosis" error={diagnosis.error} onRetry={() => mutate()} />
        ) : (
          <>
            <p className="mb-3 text-sm text-slate-700" aria-live="polite">
              {diagnosis.data.firstFailure
                ? `Fails at "${diagnosis.data.steps.find((step) => step.id === diagnosis.data.firstFailure)?.title}".`
                : 'No step failed.'}{' '}
              Ran at {formatTime(diagnosis.data.startedAt)} in {diagnosis.data.durationMs} ms.
            </p>
            <ol className="space-y-2" aria-label="Diagnosis steps, failing first">
              {failingFirst(diagnosis.data.steps).map((step) => (
                <StepItem key={step.id} step={step} />
              ))}
            </ol>
          </>
        )}
      </Panel>
    </div>
  );
}
