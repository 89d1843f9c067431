// Automatic placement: whether a Proxy's placement leaves the host to the control plane, and the
// choice itself from the latest health results and a fresh measurement of every reachable host.
// The provider's own rules still apply to everything else: with a single host, an omitted zone
// goes to the provider unchanged, and a provider without the capacity capability gets the zone as
// written.
import { AbortFanOut } from '@/lib/abort-fan-out';
import { autoZone } from '@/lib/proxy-spec';
import type { Placement, Provider } from '@/server/providers/contract';
import type { HostCapacityReader } from '@/server/providers/host-capacity';
import type { ProviderHealthStore } from '@/server/store/provider-health';
import { errorMessage } from '@/lib/error-message';
import { chooseHost, type HostFacts, type PlacementChoice } from './placement-choice';

/** The capacity reader when `placement` asks for automatic placement on `provider`. */
export function autoPlacementReader(provider: Provider, placement: Placement): HostCapacityReader | undefined {
  const reader = provider.capacity;
  if (!reader) return undefined;
  if (placement.zone === autoZone) return reader;
  return placement.zone === undefined && reader.hosts().length > 1 ? reader : undefined;
}

export async function pickHost(options: {
  provider: Provider;
  reader: HostCapacityReader;
  placement: Placement;
  health: ProviderHealthStore;
  signal?: AbortSignal;
}): Promise<PlacementChoice> {
  const { provider, reader, signal } = options;
  // An unknown machine type or image throws ErrPermanent here, before any host is measured.
  const needs = reader.needs(options.placement);
  const targets = new Map((await options.health.latest(provider.name))[0]?.targets.map((target) => [target.name, target]));
  // A child signal per host: the caller's carries one listener however many hosts are measured.
  const fan = new AbortFanOut(signal);
  const hosts = await Promise.all(
    reader.hosts().map(async (host): Promise<HostFacts> => {
      const health = targets.get(host);
      if (!health?.ready) return { host, ...(health ? { health } : {}) };
      const child = fan.child();
      try {
        return { host, health, capacity: await reader.measure(host, { signal: child.signal }) };
      } catch (err) {
        return { host, health, measureError: errorMessage(err) };
      } finally {
        child.done();
      }
    }),
  ).finally(() => fan.close());
  return chooseHost({ hosts, needs, policy: reader.policy });
}
