// The hosts a set's members may go to, as the decisions need them: in automatic placement's order
// (most free memory, then most pool space, then config order), each eligible or not (healthy, and
// room for the machine type, by the same rules as automatic placement) and whether its health
// check says Unreachable (the host-down grace counts from then). Measuring costs a call per host,
// so a pass measures only when it is about to place a member; before that, health alone decides.
import type { ProxySetTemplate } from '@/lib/api/proxyset-spec';
import type { Provider } from '@/server/providers/contract';
import type { ProviderHealthStore } from '@/server/store/provider-health';
import { errorMessage } from '@/lib/error-message';
import { chooseHost, type HostFacts } from './placement-choice';

export interface SetHostFacts {
  /** '' for a provider that chooses hosts itself: members are made without a zone */
  name: string;
  eligible: boolean;
  unreachable: boolean;
  /** why it is not eligible */
  refusal?: string;
}

/** kvm2's reason for a host it cannot reach (SSH or the libvirt socket). */
const unreachableReason = 'Unreachable';

export async function setHostFacts(options: {
  provider: Provider;
  template: ProxySetTemplate;
  health: ProviderHealthStore;
  /** measure capacity (a call per healthy host); false: eligibility from health alone */
  measure: boolean;
  signal?: AbortSignal;
}): Promise<SetHostFacts[]> {
  const { provider, signal } = options;
  const reader = provider.capacity;
  if (!reader) return [{ name: '', eligible: true, unreachable: false }];
  const targets = new Map((await options.health.latest(provider.name))[0]?.targets.map((target) => [target.name, target]));
  const facts = await Promise.all(
    reader.hosts().map(async (host): Promise<HostFacts> => {
      const health = targets.get(host);
      if (!health?.ready || !options.measure) return { host, ...(health ? { health } : {}) };
      try {
        return { host, health, capacity: await reader.measure(host, { signal }) };
      } catch (err) {
        return { host, health, measureError: errorMessage(err) };
      }
    }),
  );
  const unreachable = (host: string) => targets.get(host)?.ready === false && targets.get(host)?.reason === unreachableReason;
  if (!options.measure) return facts.map((fact) => ({ name: fact.host, eligible: fact.health?.ready === true, unreachable: unreachable(fact.host) }));
  // An unknown machine type throws ErrPermanent here: the set cannot place anything.
  const needs = reader.needs({ ...options.template.placement });
  const judged = facts.map((fact) => {
    const choice = chooseHost({ hosts: [fact], needs, policy: reader.policy });
    return { fact, refusal: choice.kind === 'none' ? choice.refusals[0]?.reason : undefined };
  });
  const byRoom = (a: HostFacts, b: HostFacts) =>
    (b.capacity?.freeMemoryBytes ?? 0) - (a.capacity?.freeMemoryBytes ?? 0) || (b.capacity?.poolAvailableBytes ?? 0) - (a.capacity?.poolAvailableBytes ?? 0);
  return judged
    .sort((a, b) => Number(a.refusal !== undefined) - Number(b.refusal !== undefined) || byRoom(a.fact, b.fact))
    .map(({ fact, refusal }) => ({ name: fact.host, eligible: refusal === undefined, unreachable: unreachable(fact.host), ...(refusal ? { refusal } : {}) }));
}
