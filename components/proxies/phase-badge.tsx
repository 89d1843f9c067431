// A Proxy's phase and health as badges, one tone per phase.
import type { ProxyPhase } from '@/lib/proxy-spec';
import { Badge, type BadgeTone } from '@/components/ui/badge';

const phaseTone: Record<ProxyPhase, BadgeTone> = {
  Pending: 'neutral',
  Provisioning: 'info',
  Running: 'info',
  Ready: 'ok',
  Failed: 'error',
  Deleting: 'warning',
};

export function PhaseBadge({ phase }: { phase: ProxyPhase }) {
  return <Badge tone={phaseTone[phase] ?? 'neutral'}>{phase}</Badge>;
}

export function HealthyBadge({ healthy, phase }: { healthy: boolean; phase: ProxyPhase }) {
  if (healthy) return <Badge tone="ok">True</Badge>;
  return <Badge tone={phase === 'Running' ? 'error' : 'neutral'}>{phase === 'Running' ? 'False' : '—'}</Badge>;
}
