// The host automatic placement would choose now, for the create form: the same choice the
// reconciler makes (server/control/auto-placement.ts), changing nothing. Only providers with the
// host-capacity capability place Proxies themselves.
import type { PlacementPreview } from '@/lib/api/placement';
import { pickHost } from '@/server/control/auto-placement';
import type { Runtime } from '@/server/runtime';
import { UnsupportedOperationError } from '@/server/errors';
import { runningProvider } from './providers-api';

export async function placementPreview(runtime: Runtime, query: { provider: string; machineType: string }): Promise<PlacementPreview> {
  const provider = runningProvider(runtime, query.provider);
  const reader = provider.capacity;
  if (!reader) throw new UnsupportedOperationError(`provider ${JSON.stringify(query.provider)} is of type ${provider.type}, which does not choose hosts`);
  // The image does not change the choice: its size is not counted (see PlacementNeeds).
  const choice = await pickHost({ provider, reader, placement: { machineType: query.machineType, image: '' }, health: runtime.store.health });
  return {
    provider: provider.name,
    machineType: query.machineType,
    policy: reader.policy,
    choice: choice.kind === 'chosen' ? { host: choice.host, reason: choice.reason } : null,
    refusals: choice.refusals,
  } satisfies PlacementPreview;
}
