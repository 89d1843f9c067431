// The Proxy page's charts with the gateway's traffic, rendered to HTML from a query cache holding
// a GET /api/proxies/{name}/stats answer: "Via the gateway" in/out right beside the VM's network
// chart, an empty state when no crawler went through the Proxy in the window, and for a Static
// Proxy (no VM to sample) the gateway chart alone.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import type { ProxyStats } from '@/lib/api/stats';
import { isStatsQueryOf } from '@/components/app/live-cache';
import { statsKeys } from '@/components/query-keys';
import { ProxyStatsPanel } from '@/components/stats/proxy-stats-panel';

// next/dynamic renders its loading state on the server: the charts themselves are what is tested.
vi.mock('next/dynamic', async () => {
  const chart = await import('@/components/stats/time-series-chart');
  return { default: () => chart.default };
});

const at = (second: number) => new Date(Date.UTC(2026, 11, 2, 12, 0, second)).toISOString();
const vmPoint = (second: number) => ({
  at: at(second),
  cpuPercent: 5,
  memoryBytes: 100,
  memoryTotalBytes: 200,
  netRxBps: 1_000,
  netTxBps: 2_000,
  diskReadBps: 0,
  diskWriteBps: 0,
});

function stats(gateway: ProxyStats['gateway'], points = [vmPoint(0), vmPoint(10), vmPoint(20)]): ProxyStats {
  return { proxy: 'edge-1', window: '1h', stepSeconds: 10, points, gateway };
}

function render(answer: ProxyStats, props: { vm?: boolean } = {}) {
  const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
  client.setQueryData(statsKeys.proxy('edge-1', '1h', { provider: 'kvm2-home', host: 'hv-1' }), answer);
  return renderToStaticMarkup(
    createElement(QueryClientProvider, { client }, createElement(ProxyStatsPanel, { name: 'edge-1', provider: 'kvm2-home', host: 'hv-1', ...props })),
  );
}

const figures = (html: string) => [...html.matchAll(/data-testid="(chart-[a-z-]+)"/g)].map((match) => match[1]);
const summary = (html: string, testId: string) => new RegExp(`data-testid="${testId}"[^]*?aria-label="([^"]*)"`).exec(html)?.[1];

describe('the Proxy page’s charts with the gateway’s traffic', () => {
  const gateway = [
    { at: at(0), inBps: 0, outBps: 0 },
    { at: at(10), inBps: 2_048, outBps: 512 },
  ];

  it('show the gateway’s in and out right beside the VM’s network chart', () => {
    const html = render(stats(gateway));
    expect(figures(html)).toEqual(['chart-cpu', 'chart-memory', 'chart-network', 'chart-gateway', 'chart-disk']);
    expect(summary(html, 'chart-gateway')).toBe('Via the gateway: 2 points; latest in (to crawlers) 2.0 KiB/s, out (from crawlers) 512 B/s');
  });

  it('say so when no crawler went through the Proxy in the window', () => {
    const html = render(stats([]));
    expect(figures(html)).toEqual(['chart-cpu', 'chart-memory', 'chart-network', 'chart-gateway-empty', 'chart-disk']);
    expect(html).toContain('No traffic went through the gateway via this Proxy in this window.');
  });

  it('show the gateway chart alone for a Proxy without a VM', () => {
    const html = render(stats(gateway, []), { vm: false });
    expect(figures(html)).toEqual(['chart-gateway']);
    expect(html).toContain('Traffic via the gateway');
    expect(html).not.toContain('VM usage');
  });

  it('refetch on the leader’s gateway round for that Proxy, and only that Proxy’s (its message names no host)', () => {
    const message = { kind: 'stats' as const, provider: '', host: '', proxy: 'static-1' };
    expect(isStatsQueryOf([...statsKeys.proxy('static-1', '1h')], message)).toBe(true);
    expect(isStatsQueryOf([...statsKeys.proxy('managed-1', '24h', { provider: 'kvm2-home', host: 'hv-1' })], message)).toBe(false);
    expect(isStatsQueryOf([...statsKeys.proxy('static-2', '1h')], message)).toBe(false);
  });
});
