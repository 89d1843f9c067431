// A stored set as the API shows it: the template without the cloud-init text (its size only), the
// settings with the budget's max resolved, and the status: the controller's conditions, rollout and
// replacement history, with the member counts and the hosts bar computed from the members now.
import { cloudInitBytes } from '@/lib/proxy-spec';
import type { ProxySetView } from '@/lib/api/proxysets';
import type { ProxySetRecord } from '@/server/store/proxy-sets';
import type { ProxyRecord } from '@/server/store/proxies';
import { memberFacts, setPolicy, templateHash } from './proxy-set-members';

export function toProxySetView(record: ProxySetRecord, members: readonly ProxyRecord[], nowMs: number): ProxySetView {
  const { spec, status } = record;
  const hash = templateHash(record.name, spec.template);
  const policy = setPolicy(spec);
  const facts = members
    .map((member) => memberFacts(member, { setName: record.name, template: spec.template, templateHash: hash, displaced: new Set(status.displaced) }))
    .filter((member) => !member.deleting);
  const late = (member: (typeof facts)[number]) => member.notReadySinceMs !== undefined && nowMs - member.notReadySinceMs >= policy.readyTimeoutMs;
  const hosts = new Map<string, { host: string; members: number; ready: number }>();
  for (const member of facts) {
    const entry = hosts.get(member.host ?? '') ?? { host: member.host ?? '', members: 0, ready: 0 };
    entry.members += 1;
    entry.ready += Number(member.ready);
    hosts.set(entry.host, entry);
  }
  const { cloudInit: _text, cloudInitBase64: _bytes, ...template } = spec.template;
  return {
    uid: record.uid,
    name: record.name,
    template: { ...template, cloudInit: { bytes: cloudInitBytes(spec.template).length } },
    templateHash: hash,
    replicas: spec.replicas,
    readyTimeout: spec.readyTimeout,
    replacementBudget: { max: policy.budget.max, window: spec.replacementBudget.window },
    hostDownGrace: spec.hostDownGrace,
    maxSurge: spec.maxSurge,
    maxUnavailable: spec.maxUnavailable,
    paused: spec.paused,
    generation: record.generation,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    ...(record.deletionRequestedAt ? { deletionRequestedAt: record.deletionRequestedAt } : {}),
    status: {
      members: facts.length,
      ready: facts.filter((member) => member.ready).length,
      updated: facts.filter((member) => member.current).length,
      updating: facts.filter((member) => member.current && !member.ready && !member.failed && !late(member)).length,
      failing: facts.filter((member) => member.failed || late(member)).length,
      rollout: status.rollout ?? { state: 'Complete', updated: facts.filter((member) => member.current).length, replicas: spec.replicas },
      conditions: status.conditions,
      replacements: status.replacements,
      hosts: [...hosts.values()].sort((a, b) => a.host.localeCompare(b.host)),
      ...(status.observedGeneration !== undefined ? { observedGeneration: status.observedGeneration } : {}),
    },
  };
}
