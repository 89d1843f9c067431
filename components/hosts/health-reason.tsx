// A host's health reason as a badge, and the plain-language explanation with where to look.
import { explainHealthReason, type HealthSeverity } from '@/lib/health-reasons';
import { Badge, type BadgeTone } from '@/components/ui/badge';

const toneOf: Record<HealthSeverity, BadgeTone> = { ok: 'ok', warning: 'warning', error: 'error' };

export function HealthBadge({ reason, details }: { reason: string; details?: Record<string, string> }) {
  const info = explainHealthReason(reason, details);
  return <Badge tone={toneOf[info.severity]}>{info.title}</Badge>;
}

export function HealthExplanation({ reason, message, details }: { reason: string; message: string; details: Record<string, string> }) {
  const info = explainHealthReason(reason, details);
  if (info.severity === 'ok') return null;
  const box = info.severity === 'warning' ? 'border-amber-300 bg-amber-50' : 'border-red-300 bg-red-50';
  return (
    <div className={`rounded-md border p-3 text-sm text-slate-900 ${box}`} data-testid="health-explanation">
      <p>
        <span className="font-semibold">{reason}: </span>
        {info.meaning}
      </p>
      {message ? <p className="mt-1 break-words font-mono text-xs text-slate-800">{message}</p> : null}
      {info.lookAt ? (
        <p className="mt-2">
          <span className="font-semibold">Look at: </span>
          {info.lookAt}
        </p>
      ) : null}
    </div>
  );
}
