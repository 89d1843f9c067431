// A stored Proxy as the API shows it: spec without the cloud-init text (only its size), the
// reconciler's status merged with the latest probe that applies to the current address, and
// Ready derived from Running plus a passing probe.
import { cloudInitBytes, type Condition, type ProxyPhase, type ProxyView } from '@/lib/proxy-spec';
import type { ProxyRecord } from '@/server/store/proxies';
import { findCondition } from './conditions';
import { instanceName, specHash } from './names';
import { probeTarget } from './prober';

const notProbed = (since: string, message: string): Condition => ({
  type: 'Healthy',
  status: 'Unknown',
  reason: 'NotProbed',
  message,
  lastTransitionTime: since,
});

export function toProxyView(record: ProxyRecord): ProxyView {
  const { spec, status } = record;
  const target = probeTarget(record);
  const probe = target !== undefined && record.probe?.target === target ? record.probe : undefined;
  const healthy = probe?.healthy ?? false;
  // A delete request shows at once, before the reconciler's next pass writes the phase itself.
  const phase: ProxyPhase = record.deletionRequestedAt ? 'Deleting' : status.phase === 'Running' && healthy ? 'Ready' : status.phase;
  const provisioned = findCondition(status.conditions, 'Provisioned');
  const healthyCondition = probe?.condition ?? notProbed(record.createdAt, target ? 'waiting for the first probe' : 'probed once Running');
  return {
    uid: record.uid,
    name: record.name,
    mode: spec.mode,
    ...(spec.mode === 'Managed'
      ? { provider: spec.provider, placement: spec.placement, cloudInit: { bytes: cloudInitBytes(spec).length }, instanceName: instanceName(record.name) }
      : { address: spec.address }),
    port: spec.port,
    labels: spec.labels,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    ...(record.deletionRequestedAt ? { deletionRequestedAt: record.deletionRequestedAt } : {}),
    status: {
      phase,
      ...(status.ip ? { ip: status.ip } : {}),
      healthy,
      ...(status.providerID ? { providerID: status.providerID } : {}),
      ...(status.host ? { host: status.host } : {}),
      conditions: [...(provisioned ? [provisioned] : []), healthyCondition],
      ...(status.observedSpecHash ? { observedSpecHash: status.observedSpecHash } : {}),
      specHash: specHash(spec),
      ...(status.lastError ? { lastError: status.lastError } : {}),
      ...(probe?.egressIP ? { egressIP: probe.egressIP } : {}),
      ...(probe?.latencyMs !== undefined ? { probeLatencyMs: probe.latencyMs } : {}),
      ...(probe ? { probedAt: probe.probedAt } : {}),
      ...(status.chosenPlacement ? { chosenPlacement: status.chosenPlacement } : {}),
    },
  };
}
