// How a set and its members relate: the spec a member gets from the template on a host, the hash
// that says whether a member is of the current template (the spec hash with the zone left out,
// since the set chose it), the member labels, names, and a member's facts for the decisions.
import { randomInt } from 'node:crypto';
import { durationMs, memberSuffixLength, proxySetLabel, type ProxySetSpec, type ProxySetTemplate } from '@/lib/api/proxyset-spec';
import { findCondition } from '@/server/control/conditions';
import type { ManagedProxySpec, ProxySpec } from '@/lib/proxy-spec';
import type { ProxyRecord } from '@/server/store/proxies';
import { specHash } from './names';
import type { SetMember, SetPolicy } from './proxy-set-decide';
import { probeTarget } from './prober';

/** The labels of a member: the template's plus `proxyset=<set>`. */
export function memberLabels(setName: string, template: ProxySetTemplate): Record<string, string> {
  return { ...template.labels, [proxySetLabel]: setName };
}

/** The spec of a member on `host`; host '' leaves the host to the provider (one without host choice). */
export function memberSpec(options: { setName: string; template: ProxySetTemplate; host: string }): ManagedProxySpec {
  const { template, host } = options;
  return {
    mode: 'Managed',
    provider: template.provider,
    placement: { ...template.placement, ...(host ? { zone: host } : {}) },
    port: template.port,
    labels: memberLabels(options.setName, template),
    cloudInit: template.cloudInit,
    ...(template.cloudInitBase64 !== undefined ? { cloudInitBase64: template.cloudInitBase64 } : {}),
  };
}

/** The spec hash of `spec` as if it had no zone: equal for every member of one template. */
export function memberTemplateHash(spec: ProxySpec): string {
  if (spec.mode !== 'Managed') return specHash(spec);
  const { zone: _zone, ...placement } = spec.placement;
  return specHash({ ...spec, placement });
}

export const templateHash = (setName: string, template: ProxySetTemplate): string => memberTemplateHash(memberSpec({ setName, template, host: '' }));

const suffixAlphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** `<set>-<5 random letters and digits>` */
export function memberName(setName: string): string {
  let suffix = '';
  for (let i = 0; i < memberSuffixLength; i++) suffix += suffixAlphabet[randomInt(suffixAlphabet.length)];
  return `${setName}-${suffix}`;
}

/** The set a Proxy belongs to by its label, if any. */
export const ownerOf = (record: { spec: ProxySpec }): string | undefined => record.spec.labels[proxySetLabel];

export function setPolicy(spec: ProxySetSpec): SetPolicy {
  return {
    replicas: spec.replicas,
    readyTimeoutMs: durationMs(spec.readyTimeout) ?? 600_000,
    budget: { max: spec.replacementBudget.max ?? spec.replicas, windowMs: durationMs(spec.replacementBudget.window) ?? 1_800_000 },
    hostDownGraceMs: durationMs(spec.hostDownGrace) ?? 300_000,
    maxSurge: spec.maxSurge,
    maxUnavailable: spec.maxUnavailable,
    paused: spec.paused,
  };
}

const sameLabels = (a: Record<string, string>, b: Record<string, string>) => {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
};

/** One member as the decisions see it. */
export function memberFacts(
  record: ProxyRecord,
  options: {
    setName: string;
    template: ProxySetTemplate;
    templateHash: string;
    displaced: ReadonlySet<string>;
    diagnosis?: string;
    hashOf?: (record: ProxyRecord) => string;
  },
): SetMember {
  // The Ready rule of proxy-view.ts (Running plus a passing probe of the current address), without
  // building the whole view: that hashes the spec and the name, per member, every pass.
  const target = probeTarget(record);
  const probe = target !== undefined && record.probe?.target === target ? record.probe : undefined;
  const deleting = record.deletionRequestedAt !== undefined;
  const ready = !deleting && record.status.phase === 'Running' && probe?.healthy === true;
  const createdAtMs = Date.parse(record.createdAt);
  // Not Ready since the later of: its creation, its last probe flip, its last provisioning flip.
  const provisioned = findCondition(record.status.conditions, 'Provisioned');
  const since = [createdAtMs, Date.parse(probe?.condition.lastTransitionTime ?? ''), Date.parse(provisioned?.lastTransitionTime ?? '')].filter(Number.isFinite);
  const zone = record.spec.mode === 'Managed' ? record.spec.placement.zone : undefined;
  return {
    name: record.name,
    host: zone ?? '',
    ready,
    failed: !deleting && record.status.phase === 'Failed',
    deleting,
    current: (options.hashOf ?? ((member: ProxyRecord) => memberTemplateHash(member.spec)))(record) === options.templateHash,
    labelsCurrent: sameLabels(record.spec.labels, memberLabels(options.setName, options.template)),
    createdAtMs,
    ...(ready ? {} : { notReadySinceMs: Math.max(...since) }),
    ...(options.diagnosis !== undefined ? { diagnosis: options.diagnosis } : {}),
    displaced: options.displaced.has(record.name),
  };
}

/** The Proxies labelled as members of each set, by set name. */
export function membersBySet(proxies: readonly ProxyRecord[]): Map<string, ProxyRecord[]> {
  const bySet = new Map<string, ProxyRecord[]>();
  for (const proxy of proxies) {
    const set = ownerOf(proxy);
    if (set === undefined) continue;
    const list = bySet.get(set) ?? [];
    list.push(proxy);
    bySet.set(set, list);
  }
  return bySet;
}
