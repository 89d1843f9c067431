// Every TanStack Query key the dashboard uses, in one module with no code of its own: the query
// modules (components/*/queries.ts) key their hooks with these, and what only needs a key (the live
// cache in the app shell, one page's mutation invalidating another's query) imports this module
// instead of another page's queries, so no page loads another's hooks and response schemas.
// Prefixes matter: invalidating a key also refetches every key that starts with it.
import type { StatsWindowName } from '@/lib/api/stats';

export const authKeys = { status: ['auth', 'status'] as const };

export const configKeys = { summary: ['config'] as const };

export const hostKeys = {
  providers: ['providers'] as const,
  /** every window of a provider's health history */
  healthOf: (provider: string) => ['providers', provider, 'health'] as const,
  history: (provider: string, windowMs: number) => ['providers', provider, 'health', windowMs] as const,
  inventory: (provider: string, host: string) => ['providers', provider, 'hosts', host] as const,
};

export const identityKeys = { all: ['ssh-identity'] as const };

export const proxyKeys = {
  all: ['proxies'] as const,
  list: ['proxies', 'list'] as const,
  detail: (name: string) => ['proxies', 'detail', name] as const,
  events: (name: string) => ['proxies', 'events', name] as const,
  /** every window of a Proxy's probe history */
  probesOf: (name: string) => ['proxies', 'probes', name] as const,
  probes: (name: string, windowMs: number) => ['proxies', 'probes', name, windowMs] as const,
  download: (name: string) => ['proxies', 'download', name] as const,
  placement: (provider: string, machineType: string) => ['proxies', 'placement', provider, machineType] as const,
};

export const proxySetKeys = {
  all: ['proxysets'] as const,
  list: ['proxysets', 'list'] as const,
  detail: (name: string) => ['proxysets', 'detail', name] as const,
  events: (name: string) => ['proxysets', 'events', name] as const,
  preview: (input: unknown) => ['proxysets', 'preview', input] as const,
  plan: (name: string, input: unknown) => ['proxysets', 'plan', name, input] as const,
};

// Gateway tokens live under ['gateway'] and are made and listed through Settings' hooks, so a token
// made or revoked on either page shows on the other at once, and one invalidation of
// gatewayKeys.all refreshes the whole Gateway page.
export const settingsKeys = { tokens: ['tokens'] as const, gatewayTokens: ['gateway', 'tokens'] as const };

export const gatewayKeys = {
  all: ['gateway'] as const,
  view: ['gateway', 'view'] as const,
  tokens: settingsKeys.gatewayTokens,
};

/**
 * Stats queries are keyed `['stats', ...]` with the provider, host and Proxy names among the parts:
 * the live cache refetches those naming the host or Proxy of a `stats` message.
 */
export const statsKeys = {
  all: ['stats'] as const,
  /** `provider` and `host` (where the VM runs, when known) let a host's `stats` message reach it */
  proxy: (name: string, window: StatsWindowName, where: { provider?: string; host?: string } = {}) =>
    ['stats', 'proxy', name, window, where.provider ?? '', where.host ?? ''] as const,
  host: (provider: string, host: string, window: StatsWindowName) => ['stats', 'host', provider, host, window] as const,
  traffic: ['stats', 'traffic'] as const,
};
