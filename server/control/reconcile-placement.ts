// The placement a Create uses. When the Proxy leaves the host to the control plane, the host chosen
// once is recorded in the status (with an event saying why) and used from then on, across passes,
// restarts and replacements; a host no longer configured is chosen again. When no host fits, the
// Proxy waits with a condition naming why each host was refused.
import type { ManagedProxySpec } from '@/lib/proxy-spec';
import type { Placement, Provider } from '@/server/providers/contract';
import { autoPlacementReader, pickHost } from './auto-placement';
import type { Pass, PassOutcome } from './pass';
import { describeRefusals } from './placement-choice';

export type PlacementStep = { kind: 'placed'; placement: Placement } | { kind: 'wait'; outcome: PassOutcome };

export async function placementForCreate(pass: Pass, { provider, spec }: { provider: Provider; spec: ManagedProxySpec }): Promise<PlacementStep> {
  const reader = autoPlacementReader(provider, spec.placement);
  if (!reader) return { kind: 'placed', placement: spec.placement };
  const kept = pass.status.chosenPlacement;
  if (kept && reader.hosts().includes(kept.zone)) return { kind: 'placed', placement: { ...spec.placement, zone: kept.zone } };
  let choice;
  try {
    choice = await pickHost({ provider, reader, placement: spec.placement, health: pass.deps.store.health, signal: pass.deps.signal });
  } catch (err) {
    return { kind: 'wait', outcome: await pass.fail(err, 'choosing a host') };
  }
  if (choice.kind === 'none') {
    const message = describeRefusals(choice.refusals);
    const previous = pass.status.conditions.find((condition) => condition.type === 'Provisioned');
    const events = previous?.message === message ? [] : [{ type: 'Warning' as const, reason: 'NoHostFits', message }];
    await pass.commit(pass.withProvisioned({ ...pass.status, observedSpecHash: pass.hash }, { status: 'False', reason: 'NoHostFits', message }), events);
    return { kind: 'wait', outcome: { kind: 'requeue', afterMs: pass.deps.quotaRetryMs } };
  }
  const refused = choice.refusals.map((refusal) => `; refused ${refusal.host}: ${refusal.reason}`).join('');
  await pass.commit({ ...pass.status, chosenPlacement: { zone: choice.host, reason: choice.reason, at: pass.now() } }, [
    { type: 'Normal', reason: 'Placed', message: `placed on ${choice.reason}${refused}` },
  ]);
  return { kind: 'placed', placement: { ...spec.placement, zone: choice.host } };
}
