// For bench/event-latency.ts: what one lifecycle event costs besides its latency. The server side
// is counted from the spans: every libvirt RPC is a `kvm2.<Rpc>` span, and the span it hangs under
// says who made it (the event's own state read's provider.watch.state, a reconcile pass's
// provider.get or .create, the simulated browser's refetch; RPCs under none are the stats sampler's). The browser side is a TanStack QueryClient fed the stream's messages
// through the dashboard's own live cache (applyLiveMessages), with the queries of an open host page
// and an open Proxy page observed as the pages observe them; each fetch it makes is counted, and
// runs the route handler the browser would call inside a `bench.client` span.
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { QueryClient, QueryObserver, type QueryKey } from '@tanstack/react-query';
import { applyLiveMessages } from '@/components/app/live-cache';
import { hostKeys, proxyKeys } from '@/components/query-keys';
import type { LiveMessage } from '@/lib/api/live';
import { startTracing, tracer } from '@/server/telemetry/tracing';
import { handlers as h } from '@/test/unit/api-harness';
import type { RouteHandler } from '@/server/http/route';
import type { LabApi } from '@/test/lab/api-lab-support';

/** Who made an RPC: the root span it hangs under. */
/** `other`: RPCs under no span of these (the stats sampler's rounds). */
export type RpcOwner = 'browser refetch' | 'reconcile pass' | 'event handling' | 'other';

export interface RpcCount {
  owner: RpcOwner;
  rpc: string;
  startedAt: number;
}

/** Registers tracing with spans kept in memory; call before the runtime starts. */
export function captureRpcs(): { since(ms: number, until: number): RpcCount[] } {
  const exporter = new InMemorySpanExporter();
  startTracing([new SimpleSpanProcessor(exporter)]);
  /** The nearest span above the RPC that says who made it. */
  const ownerOf = (span: ReadableSpan, byId: Map<string, ReadableSpan>): RpcOwner => {
    for (let above = byId.get(span.parentSpanContext?.spanId ?? ''); above; above = byId.get(above.parentSpanContext?.spanId ?? '')) {
      if (above.name === 'provider.watch.state') return 'event handling';
      if (above.name.startsWith('bench.client')) return 'browser refetch';
      if (above.name.startsWith('provider.')) return 'reconcile pass';
    }
    return 'other';
  };
  return {
    since(ms, until) {
      const spans = exporter.getFinishedSpans();
      const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
      return spans
        .filter((span) => span.name.startsWith('kvm2.') && !['kvm2.dial', 'kvm2.download'].includes(span.name))
        .map((span) => ({ span, startedAt: span.startTime[0] * 1000 + span.startTime[1] / 1e6 }))
        .filter(({ startedAt }) => startedAt >= ms && startedAt < until)
        .map(({ span, startedAt }) => ({ owner: ownerOf(span, byId), rpc: span.name.slice('kvm2.'.length), startedAt }));
    },
  };
}

export interface DashboardClient {
  /** fetches per query, counted since the last `take` */
  take(): Map<string, number>;
  /** resolves once every message received so far is applied and no query is fetching */
  idle(): Promise<void>;
  stop(): void;
}

/**
 * A browser with the host page of `host` and the page of Proxy `name` open: their queries fetched
 * once, then kept up to date by the stream's messages only (no polling, so every fetch counted is
 * one a message caused).
 */
export async function openDashboard(options: { api: LabApi; host: string; proxy: string; messages: () => LiveMessage[] }): Promise<DashboardClient> {
  const { api, host, proxy } = options;
  const provider = api.entryName;
  const get = (handler: RouteHandler, path: string, params: Record<string, string>) => async () => {
    const answer = await tracer().startActiveSpan(`bench.client ${path}`, async (span) => {
      try {
        return await api.call(handler, path, 'GET', { session: api.session, params });
      } finally {
        span.end();
      }
    });
    if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${answer.text}`);
    return answer.json as unknown;
  };
  const queries: Array<{ key: QueryKey; fn: () => Promise<unknown> }> = [
    { key: hostKeys.inventory(provider, host), fn: get(h.host.GET, `/api/providers/${provider}/hosts/${host}`, { provider, host }) },
    { key: hostKeys.providers, fn: get(h.providers.GET, '/api/providers', {}) },
    { key: proxyKeys.list, fn: get(h.proxies.GET, '/api/proxies', {}) },
    { key: proxyKeys.detail(proxy), fn: get(h.proxy.GET, `/api/proxies/${proxy}`, { name: proxy }) },
    { key: proxyKeys.events(proxy), fn: get(h.proxyEvents.GET, `/api/proxies/${proxy}/events`, { name: proxy }) },
  ];
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  const unsubscribes = queries.map(({ key, fn }) => new QueryObserver(queryClient, { queryKey: key, queryFn: fn }).subscribe(() => undefined));
  const counts = new Map<string, number>();
  const unwatch = queryClient.getQueryCache().subscribe((event) => {
    if (event.type === 'updated' && event.action.type === 'fetch') {
      const label = JSON.stringify(event.query.queryKey);
      counts.set(label, (counts.get(label) ?? 0) + 1);
    }
  });
  // The stream's messages as they arrive, in order, into the cache (the ready message aside: a
  // fresh connection refetches everything, which is not what an event costs).
  let applied = options.messages().length;
  const idle = async () => {
    while (applied < options.messages().length || queryClient.isFetching() > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  };
  while (queryClient.isFetching() > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  const feeder = setInterval(() => {
    const all = options.messages();
    const fresh = all.slice(applied).filter((message) => message.kind !== 'ready');
    applied = all.length;
    if (fresh.length > 0) applyLiveMessages(queryClient, fresh);
  }, 10);
  counts.clear();
  return {
    take() {
      const taken = new Map(counts);
      counts.clear();
      return taken;
    },
    idle,
    stop() {
      clearInterval(feeder);
      unwatch();
      for (const unsubscribe of unsubscribes) unsubscribe();
      queryClient.clear();
    },
  };
}
