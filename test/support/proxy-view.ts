// A Proxy as the API shows it to the dashboard: `edge-1`, Managed, Ready and healthy, for tests of
// components that read ProxyView answers; a test overrides what it is about.
import type { ProxyView } from '@/lib/proxy-spec';

export function managedProxyView(overrides: Partial<ProxyView> = {}): ProxyView {
  return {
    uid: 'u1',
    name: 'edge-1',
    mode: 'Managed',
    provider: 'kvm',
    placement: { zone: 'lab1', machineType: 'small', image: 'debian-12' },
    port: 3128,
    labels: {},
    cloudInit: { bytes: 0 },
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    status: { phase: 'Ready', healthy: true, conditions: [], specHash: 'h' },
    ...overrides,
  };
}
