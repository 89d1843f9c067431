// Where a set's members would go now, for the create form: the controller's own decision for an
// empty set (spread over the eligible hosts, ties by automatic placement's order), creating nothing.
import type { ProxySetCreate } from '@/lib/api/proxyset-spec';
import type { ProxySetPreview } from '@/lib/api/proxysets';
import type { Provider } from '@/server/providers/contract';
import type { ProviderHealthStore } from '@/server/store/provider-health';
import { decide } from './proxy-set-decide';
import { setHostFacts } from './proxy-set-hosts';
import { setPolicy } from './proxy-set-members';

export async function previewSet(options: { provider: Provider; set: ProxySetCreate; health: ProviderHealthStore; nowMs: number }): Promise<ProxySetPreview> {
  const { provider, set } = options;
  const hosts = await setHostFacts({ provider, template: set.template, health: options.health, measure: true });
  const { actions } = decide({
    policy: setPolicy(set),
    members: [],
    hosts: hosts.map((host) => ({ name: host.name, eligible: host.eligible })),
    history: [],
    exhausted: false,
    nowMs: options.nowMs,
  });
  const members = new Map<string, number>();
  for (const action of actions) if (action.kind === 'create') members.set(action.host, (members.get(action.host) ?? 0) + 1);
  const placed = [...members.values()].reduce((sum, count) => sum + count, 0);
  return {
    provider: provider.name,
    replicas: set.replicas,
    hosts: hosts.map((host) => ({
      host: host.name,
      members: members.get(host.name) ?? 0,
      eligible: host.eligible,
      ...(host.refusal ? { reason: host.refusal } : {}),
    })),
    unplaced: set.replicas - placed,
  };
}
