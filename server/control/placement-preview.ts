// What automatic placement would do now, for the create forms, changing nothing: the host a
// Proxy would go to (the reconciler's own choice, auto-placement.ts) and the hosts a set's members
// would go to (the set controller's, proxy-set-preview.ts). Only providers with the host-capacity
// capability place Proxies themselves.
import type { PlacementPreview } from '@/lib/api/placement';
import type { ProxySetCreate } from '@/lib/api/proxyset-spec';
import type { ProxySetPreview } from '@/lib/api/proxysets';
import { UnsupportedOperationError } from '@/server/errors';
import type { Provider } from '@/server/providers/contract';
import type { ProviderHealthStore } from '@/server/store/provider-health';
import { pickHost } from './auto-placement';
import type { Clock } from './clock';
import { previewSet } from './proxy-set-preview';

export interface PlacementPreviewOptions {
  /** the running provider of that name (404 when not configured, 503 when not running) */
  running(name: string): Provider;
  /** the latest health checks: hosts that are not ready are not chosen */
  health: ProviderHealthStore;
  clock: Clock;
}

export class PlacementPreviewService {
  constructor(private readonly options: PlacementPreviewOptions) {}

  /** The host a Proxy of `machineType` would be placed on now. */
  async host(query: { provider: string; machineType: string }): Promise<PlacementPreview> {
    const provider = this.options.running(query.provider);
    const reader = provider.capacity;
    if (!reader) throw new UnsupportedOperationError(`provider ${JSON.stringify(query.provider)} is of type ${provider.type}, which does not choose hosts`);
    // The image does not change the choice: its size is not counted (see PlacementNeeds).
    const choice = await pickHost({ provider, reader, placement: { machineType: query.machineType, image: '' }, health: this.options.health });
    return {
      provider: provider.name,
      machineType: query.machineType,
      policy: reader.policy,
      choice: choice.kind === 'chosen' ? { host: choice.host, reason: choice.reason } : null,
      refusals: choice.refusals,
    } satisfies PlacementPreview;
  }

  /** The hosts a new set's members would go to now. */
  set(set: ProxySetCreate): Promise<ProxySetPreview> {
    const provider = this.options.running(set.template.provider);
    return previewSet({ provider, set, health: this.options.health, nowMs: this.options.clock.now() });
  }
}
