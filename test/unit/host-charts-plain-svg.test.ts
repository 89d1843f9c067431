// The host page's charts as rendered HTML from a query cache holding a host's stats and check
// history: drawn on the first render as plain SVG (a path per line, no chart library to load), each
// with its caption, its summary for screen readers, its axes' labels and, for several lines, a legend.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { HealthHistory, HostInventoryView, ProviderList } from '@/lib/api/providers';
import type { HostStats } from '@/lib/api/stats';
import { HostDetail } from '@/components/hosts/host-detail';
import { hostKeys, statsKeys } from '@/components/query-keys';

const gib = 1024 ** 3;
const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 12, minute)).toISOString();

const inventory: HostInventoryView = { provider: 'lab', host: 'kvm-a', pool: 'default', pools: [], images: [], downloads: [], domains: [] };
const stats: HostStats = {
  provider: 'lab',
  host: 'kvm-a',
  window: '1h',
  stepSeconds: 10,
  points: [0, 1, 2].map((minute) => ({ at: at(minute), cpuPercent: minute === 0 ? null : 6 * minute, memoryUsedBytes: 8 * gib, memoryTotalBytes: 32 * gib })),
  domains: [],
};
const providers: ProviderList = {
  providers: [
    {
      name: 'lab',
      type: 'kvm2',
      available: true,
      targets: [{ name: 'kvm-a', ready: true, reason: 'Reachable', message: '', details: {}, latencyMs: 21, checkedAt: at(30) }],
    },
  ],
};
const history: HealthHistory = {
  provider: 'lab',
  since: at(0),
  samples: [0, 10, 20, 30].map((minute) => ({
    target: 'kvm-a',
    ready: minute !== 10,
    reason: minute === 10 ? 'Unreachable' : 'Reachable',
    latencyMs: 20 + minute,
    checkedAt: at(minute),
    poolAvailableGiB: 150 - minute / 10,
  })),
};

function render(): string {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  client.setQueryData(hostKeys.inventory('lab', 'kvm-a'), inventory);
  client.setQueryData(statsKeys.host('lab', 'kvm-a', '1h'), stats);
  client.setQueryData(hostKeys.providers, providers);
  client.setQueryData(hostKeys.history('lab', 24 * 3_600_000), history);
  return renderToStaticMarkup(createElement(QueryClientProvider, { client }, createElement(HostDetail, { provider: 'lab', host: 'kvm-a' })));
}

/** The HTML of the <figure> holding `marker`. */
const figureWith = (html: string, marker: string): string => {
  const index = html.indexOf(marker);
  expect(index, marker).toBeGreaterThan(-1);
  return html.slice(html.lastIndexOf('<figure', index), html.indexOf('</figure>', index));
};

describe('host page charts', () => {
  const html = render();

  it('draws the host usage as plain SVG lines with captions, summaries and a legend for two lines', () => {
    const cpu = figureWith(html, 'data-testid="host-chart-cpu"');
    expect(cpu).toContain('<figcaption class="mb-1 text-xs font-medium text-slate-700">CPU (% of all CPUs)</figcaption>');
    expect(cpu).toContain('aria-label="CPU (% of all CPUs): 3 points; latest CPU 12 %"');
    // The first point has no rate: the line starts at the second.
    expect(cpu).toMatch(/<path d="M500 \d+(\.\d)?L1000 \d+(\.\d)?" data-series="cpuPercent"/);
    // The value axis: round ticks from 0 to just above the highest value.
    expect(cpu).toContain('>0.0 %</span>');
    expect(cpu).toContain('>15 %</span>');
    const memory = figureWith(html, 'data-testid="host-chart-memory"');
    expect(memory).toContain('aria-label="Memory: 3 points; latest used 8.0 GiB, total 32.0 GiB"');
    expect(memory).toContain('data-series="memoryUsedBytes"');
    expect(memory).toContain('data-series="memoryTotalBytes"');
    expect(memory).toMatch(/<li[^>]*>.*used<\/li>/);
    expect(html).not.toContain('recharts');
  });

  it('draws the check history: latency shaded while up, and the pool free space', () => {
    const latency = figureWith(html, 'Check latency (ms); shaded while up');
    expect(latency).toContain('aria-label="kvm-a: 4 checks, 3 up, 1 down; last latency 50 ms"');
    expect(latency).toContain('data-series="latency"');
    // Up from the first check to the second, down to the third, up again from there to the last.
    expect(latency).toContain('fill="#a7f3d0"');
    expect(latency.match(/fill="#a7f3d0"/g)).toHaveLength(2);
    const free = figureWith(html, 'Pool free space (GiB)');
    expect(free).toContain('aria-label="kvm-a: pool free space, last 147.0 GiB"');
    expect(free).toContain('data-series="freeGiB"');
  });
});
