'use client';
// Hosts as the API serves them: providers with the latest health per host (GET /api/providers),
// the health history for the charts (GET /api/providers/{provider}/health?since=), and one host's
// pools, cached images and domains (GET /api/providers/{provider}/hosts/{host}). Every response is
// normalised here, so a change in the API's shape is fixed in this file alone.
import { useQuery } from '@tanstack/react-query';
import { getJson } from '@/components/api/client';

export interface HostHealth {
  name: string;
  ready: boolean;
  reason: string;
  message: string;
  details: Record<string, string>;
  latencyMs: number;
  checkedAt: string;
}

export interface ProviderHealthSummary {
  name: string;
  type: string;
  available: boolean;
  reason?: string;
  targets: HostHealth[];
}

export interface HealthSample {
  target: string;
  ready: boolean;
  reason: string;
  latencyMs: number;
  checkedAt: string;
  /** free space of the host's pool at that check, when the API reports it */
  poolAvailableGiB?: number;
}

export interface PoolInfo {
  name: string;
  state: string;
  capacityBytes: number;
  allocationBytes: number;
  availableBytes: number;
  /** the pool the provider uses on this host */
  configured: boolean;
}

export interface CachedImage {
  volume: string;
  entry?: string;
  key?: string;
  format?: string;
  sizeBytes?: number;
  sha256?: string;
  complete: boolean;
  /** domains on this host backing onto the image */
  usedBy: number;
  usedByDomains: string[];
}

export type DomainKind = 'managed' | 'orphan' | 'kvm' | 'foreign';

export interface DomainInfo {
  name: string;
  state: string;
  kind: DomainKind;
  proxy?: string;
  ip?: string;
  /** why the domain is not what it looks like (an unreadable mark, an unreadable state) */
  note?: string;
}

export interface HostInventory {
  /** the pool the provider uses on this host */
  pool?: string;
  pools: PoolInfo[];
  images: CachedImage[];
  domains: DomainInfo[];
}

type Loose = Record<string, unknown>;
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const num = (...values: unknown[]): number | undefined => {
  for (const value of values) {
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  }
  return undefined;
};
const list = (value: unknown, key: string): Loose[] => {
  const items = Array.isArray(value) ? value : Array.isArray((value as Loose | undefined)?.[key]) ? ((value as Loose)[key] as unknown[]) : [];
  return items.filter((item): item is Loose => !!item && typeof item === 'object');
};

function toHostHealth(raw: Loose): HostHealth {
  return {
    name: text(raw.name) ?? text(raw.target) ?? '',
    ready: raw.ready === true,
    reason: text(raw.reason) ?? '',
    message: text(raw.message) ?? '',
    details: (raw.details && typeof raw.details === 'object' ? raw.details : {}) as Record<string, string>,
    latencyMs: num(raw.latencyMs) ?? 0,
    checkedAt: text(raw.checkedAt) ?? '',
  };
}

export function toProviders(raw: unknown): ProviderHealthSummary[] {
  return list(raw, 'providers').map((provider) => ({
    name: text(provider.name) ?? '',
    type: text(provider.type) ?? '',
    available: provider.available !== false,
    ...(text(provider.reason) ? { reason: text(provider.reason) } : {}),
    targets: list(provider.targets ?? provider.hosts, 'targets').map(toHostHealth),
  }));
}

export function toHealthSamples(raw: unknown): HealthSample[] {
  const samples = list(raw, 'samples');
  return (samples.length > 0 ? samples : list(raw, 'history')).map((sample) => {
    const details = (sample.details ?? {}) as Loose;
    return {
      target: text(sample.target) ?? text(sample.name) ?? '',
      ready: sample.ready === true,
      reason: text(sample.reason) ?? '',
      latencyMs: num(sample.latencyMs) ?? 0,
      checkedAt: text(sample.checkedAt) ?? '',
      poolAvailableGiB: num(sample.poolAvailableGiB, details.poolAvailableGiB),
    };
  });
}

function toImage(raw: Loose): CachedImage {
  const domains = Array.isArray(raw.domains) ? raw.domains.filter((name): name is string => typeof name === 'string') : [];
  return {
    volume: text(raw.volume) ?? text(raw.name) ?? '',
    entry: text(raw.entry) ?? text(raw.provider),
    key: text(raw.key),
    format: text(raw.format),
    sizeBytes: num(raw.sizeBytes, raw.size, raw.capacityBytes, raw.capacity),
    sha256: text(raw.sha256) ?? text(raw.digest),
    complete: raw.complete !== false,
    usedBy: num(raw.usedBy, raw.inUseBy, raw.domainCount) ?? domains.length,
    usedByDomains: domains,
  };
}

const kinds: Record<string, DomainKind> = { managed: 'managed', orphan: 'orphan', orphaned: 'orphan', kvm: 'kvm', 'kvm-gen-1': 'kvm', foreign: 'foreign' };

export function toInventory(raw: unknown): HostInventory {
  const body = (raw ?? {}) as Loose;
  return {
    pool: text(body.pool),
    pools: list(body.pools, 'pools').map((pool) => ({
      name: text(pool.name) ?? '',
      state: text(pool.state) ?? 'unknown',
      capacityBytes: num(pool.capacityBytes, pool.capacity) ?? 0,
      allocationBytes: num(pool.allocationBytes, pool.allocation) ?? 0,
      availableBytes: num(pool.availableBytes, pool.available) ?? 0,
      configured: pool.configured === true || (typeof body.pool === 'string' && pool.name === body.pool),
    })),
    images: list(body.images, 'images').map(toImage),
    domains: list(body.domains, 'domains').map((domain) => ({
      name: text(domain.name) ?? '',
      state: text(domain.state) ?? 'unknown',
      kind: kinds[text(domain.kind) ?? ''] ?? 'foreign',
      proxy: text(domain.proxy) ?? text(domain.proxyName),
      ip: text(domain.ip),
      note: text(domain.note),
    })),
  };
}

const segment = encodeURIComponent;

export const hostKeys = {
  providers: ['providers'] as const,
  history: (provider: string, windowMs: number) => ['providers', provider, 'health', windowMs] as const,
  inventory: (provider: string, host: string) => ['providers', provider, 'hosts', host] as const,
};

export const pollMs = 5_000;

export function useProviders() {
  return useQuery({
    queryKey: hostKeys.providers,
    queryFn: async (context) => toProviders(await getJson<unknown>('/api/providers')(context)),
    refetchInterval: pollMs,
  });
}

/** The checks of the last `windowMs`, counted back from each fetch. */
export function useHealthHistory(provider: string, windowMs: number) {
  return useQuery({
    queryKey: hostKeys.history(provider, windowMs),
    queryFn: async (context) => {
      const since = new Date(Date.now() - windowMs).toISOString();
      return toHealthSamples(await getJson<unknown>(`/api/providers/${segment(provider)}/health?since=${encodeURIComponent(since)}`)(context));
    },
    refetchInterval: pollMs * 3,
    placeholderData: (previous) => previous,
  });
}

export function useHostInventory(provider: string, host: string) {
  return useQuery({
    queryKey: hostKeys.inventory(provider, host),
    queryFn: async (context) => toInventory(await getJson<unknown>(`/api/providers/${segment(provider)}/hosts/${segment(host)}`)(context)),
    refetchInterval: pollMs,
  });
}
