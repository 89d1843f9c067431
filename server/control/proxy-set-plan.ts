// What a change to a set does, said before it is saved (the edit form) and recorded as the event
// when it is: nothing; settings only; the template's labels (members relabelled in place, no VM
// touched); or anything in the spec hash (every member of the old template replaced, rolling).
import type { ProxySetSpec } from '@/lib/api/proxyset-spec';
import type { ProxySetPlan } from '@/lib/api/proxysets';
import type { ProxySetRecord } from '@/server/store/proxy-sets';
import type { ProxyRecord } from '@/server/store/proxies';
import { memberTemplateHash, templateHash } from './proxy-set-members';

export function planOf(record: ProxySetRecord, spec: ProxySetSpec, members: readonly ProxyRecord[]): ProxySetPlan {
  const before = record.spec;
  if (JSON.stringify(spec) === JSON.stringify(before)) return { change: 'none', replaced: 0, message: 'nothing changes' };
  const hash = templateHash(record.name, spec.template);
  if (hash !== templateHash(record.name, before.template)) {
    const replaced = members.filter((member) => !member.deletionRequestedAt && memberTemplateHash(member.spec) !== hash).length;
    const pace = `at most ${spec.maxSurge} new at a time, never fewer than ${Math.max(0, spec.replicas - spec.maxUnavailable)} Ready`;
    return {
      change: 'template',
      replaced,
      message: `template changed: ${replaced} member${replaced === 1 ? '' : 's'} replaced, rolling (${pace})${spec.paused ? '; paused: nothing moves until resumed' : ''}`,
    };
  }
  const scaled = spec.replicas === before.replicas ? '' : `; replicas ${before.replicas} → ${spec.replicas}`;
  if (JSON.stringify(spec.template.labels) !== JSON.stringify(before.template.labels)) {
    return { change: 'labels', replaced: 0, message: `labels changed: members relabelled in place, no VM replaced${scaled}` };
  }
  return { change: 'settings', replaced: 0, message: `set updated, no VM replaced${scaled}` };
}
