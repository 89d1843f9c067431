// Which Proxies the table sends to their diagnosis ("why?"): not Ready for longer than the named
// threshold, counted from the earliest condition that is not True (or creation); never a Ready or
// deleting one. And the checklist's order on the page: failing steps first, otherwise as run.
import { describe, expect, it } from 'vitest';
import type { DiagnosisStep } from '@/lib/api/diagnosis';
import type { Condition, ProxyView } from '@/lib/proxy-spec';
import { diagnosisHref, explainNotReadyAfterMs, failingFirst, needsExplaining, notReadySince } from '@/components/proxies/diagnosis-view';

const created = '2026-12-01T10:00:00.000Z';
const createdMs = Date.parse(created);
const minute = 60_000;

const condition = (type: Condition['type'], status: Condition['status'], atMs: number): Condition => ({
  type,
  status,
  reason: 'R',
  message: '',
  lastTransitionTime: new Date(atMs).toISOString(),
});

function proxy(phase: ProxyView['status']['phase'], conditions: Condition[] = [], extra: Partial<ProxyView> = {}): ProxyView {
  return {
    uid: 'u',
    name: 'my proxy',
    mode: 'Managed',
    port: 3128,
    labels: {},
    createdAt: created,
    updatedAt: created,
    ...extra,
    status: { phase, healthy: false, conditions, specHash: 'h' },
  };
}

describe('the "why?" link', () => {
  it('names a threshold of a few minutes', () => {
    expect(explainNotReadyAfterMs).toBe(5 * minute);
  });

  it.each([
    ['Provisioning since creation, past the threshold', proxy('Provisioning'), createdMs + 6 * minute, true],
    ['Provisioning since creation, within the threshold', proxy('Provisioning'), createdMs + 4 * minute, false],
    ['Ready', proxy('Ready', [condition('Healthy', 'True', createdMs)]), createdMs + 60 * minute, false],
    ['Deleting', proxy('Deleting'), createdMs + 60 * minute, false],
    ['deletion requested', proxy('Failed', [], { deletionRequestedAt: created }), createdMs + 60 * minute, false],
    [
      'Running with Healthy False for 10 minutes',
      proxy('Running', [condition('Provisioned', 'True', createdMs), condition('Healthy', 'False', createdMs + 50 * minute)]),
      createdMs + 60 * minute,
      true,
    ],
    [
      'Running with Healthy False for 2 minutes after an hour Ready',
      proxy('Running', [condition('Provisioned', 'True', createdMs), condition('Healthy', 'False', createdMs + 58 * minute)]),
      createdMs + 60 * minute,
      false,
    ],
  ])('%s: %s', (_what, view, nowMs, expected) => {
    expect(needsExplaining(view, nowMs)).toBe(expected);
  });

  it('counts from the earliest condition that is not True', () => {
    const view = proxy('Failed', [condition('Provisioned', 'False', createdMs + 3 * minute), condition('Healthy', 'Unknown', createdMs + minute)]);
    expect(notReadySince(view)).toBe(createdMs + minute);
  });

  it('goes to the checklist on the Proxy page, the name encoded', () => {
    expect(diagnosisHref('my proxy')).toBe('/proxies/my%20proxy#diagnosis');
  });
});

describe('the checklist order on the page', () => {
  const step = (id: DiagnosisStep['id'], status: DiagnosisStep['status']): DiagnosisStep => ({ id, title: id, status, evidence: '', durationMs: 0 });

  it('puts failing steps first, keeping the checklist order within each group', () => {
    const steps = [
      step('host', 'pass'),
      step('domain', 'pass'),
      step('cloud-init', 'unknown'),
      step('agent', 'fail'),
      step('address', 'fail'),
      step('port', 'skipped'),
    ];
    expect(failingFirst(steps).map((entry) => entry.id)).toEqual(['agent', 'address', 'host', 'domain', 'cloud-init', 'port']);
  });
});
