// The host page's domains table as rendered HTML from a query cache holding a host's inventory and
// its stats: each domain with samples shows its CPU and traffic over the last hour as two plain SVG
// lines (one <path> each, drawn on the first render, no chart library to load), named for screen
// readers with the latest value; a domain without samples shows a dash.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { HostInventoryView } from '@/lib/api/providers';
import type { HostStats } from '@/lib/api/stats';
import { HostDetail } from '@/components/hosts/host-detail';
import { hostKeys, statsKeys } from '@/components/query-keys';

const inventory: HostInventoryView = {
  provider: 'lab',
  host: 'kvm-a',
  pool: 'default',
  pools: [],
  images: [],
  downloads: [],
  domains: [
    { name: 'kvm2-edge-1', state: 'running', kind: 'managed', proxy: 'edge-1', ip: '10.0.0.5' },
    { name: 'someone-elses', state: 'shut off', kind: 'foreign' },
  ],
};

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 12, minute)).toISOString();
const stats: HostStats = {
  provider: 'lab',
  host: 'kvm-a',
  window: '1h',
  stepSeconds: 10,
  points: [],
  domains: [
    {
      domain: 'kvm2-edge-1',
      proxy: 'edge-1',
      points: [
        { at: at(0), cpuPercent: null, netRxBps: null, netTxBps: null },
        { at: at(1), cpuPercent: 4, netRxBps: 1000, netTxBps: 500 },
        { at: at(2), cpuPercent: 12, netRxBps: 3072, netTxBps: 1024 },
      ],
    },
  ],
};

function render(): string {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  client.setQueryData(hostKeys.inventory('lab', 'kvm-a'), inventory);
  client.setQueryData(statsKeys.host('lab', 'kvm-a', '1h'), stats);
  return renderToStaticMarkup(createElement(QueryClientProvider, { client }, createElement(HostDetail, { provider: 'lab', host: 'kvm-a' })));
}

/** The HTML of the table row whose data-testid is `domain-row-<name>`. */
const rowOf = (html: string, name: string): string => {
  const start = html.indexOf(`data-testid="domain-row-${name}"`);
  expect(start, `row for ${name}`).toBeGreaterThan(-1);
  return html.slice(start, html.indexOf('</tr>', start));
};

describe('host page domains table', () => {
  it("draws each sampled domain's CPU and traffic as one labelled SVG path each, on the first render", () => {
    const row = rowOf(render(), 'kvm2-edge-1');
    const sparklines = [...row.matchAll(/<svg[^>]*data-testid="sparkline"[^>]*>(.*?)<\/svg>/g)];
    expect(sparklines).toHaveLength(2);
    expect(row).toContain('role="img"');
    expect(row).toContain('aria-label="CPU over the last hour, now 12 %"');
    expect(row).toContain('aria-label="Traffic over the last hour, now 4.0 KiB/s"');
    for (const [, inner] of sparklines) expect(inner).toMatch(/<path[^>]* d="M[\d.]+ [\d.]+L[\d.]+ [\d.]+"/);
    expect(row).not.toContain('recharts');
  });

  it('shows a dash for a domain without samples', () => {
    const row = rowOf(render(), 'someone-elses');
    expect(row).not.toContain('data-testid="sparkline"');
    expect(row).toContain('—');
  });
});
