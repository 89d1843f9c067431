// What the Gateway page and the overview's gateway tile show for a given GET /api/gateway answer,
// rendered to HTML from a query cache holding fixture data: the URL with the token picker's
// placeholder, the snippets, the grammar, live totals summed over the Proxies, the per-Proxy,
// per-token and session tables, the refusals in words; the gateway off; the empty states.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createElement, type ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { TokenList } from '@/lib/api/auth';
import type { GatewayView } from '@/lib/api/gateway';
import { GatewayPage } from '@/components/gateway/gateway-page';
import { gatewayKeys, proxyKeys, proxySetKeys } from '@/components/query-keys';
import { failureSummary, gatewayTotals } from '@/components/gateway/traffic-model';
import { GatewayTile } from '@/components/overview/gateway-tile';
import { managedProxyView } from '@/test/support/proxy-view';

const MiB = 1024 * 1024;

const view: GatewayView = {
  enabled: true,
  listening: true,
  host: 'gw.lan',
  port: 8888,
  drainMs: 30_000,
  proxies: [
    { proxy: 'edge-2', bytesIn: 1 * MiB, bytesOut: 1024, open: 1, tunnels: 4, failures: {} },
    { proxy: 'edge-1', bytesIn: 2 * MiB, bytesOut: 2048, open: 2, tunnels: 6, failures: { refused: 1, reset: 3 } },
  ],
  tokens: [
    { token: '0123456789abcdef', name: 'crawler-eu', bytesIn: 2 * MiB, bytesOut: 2048, open: 2, tunnels: 6 },
    { token: 'fedcba9876543210', bytesIn: 1 * MiB, bytesOut: 1024, open: 1, tunnels: 4 },
  ],
  sessions: [{ session: 'user-42', proxy: 'edge-1', bytesIn: 2 * MiB, bytesOut: 2048, open: 1, tunnels: 2 }],
  refusals: [{ at: '2026-12-02T08:00:00.000Z', client: '192.168.1.77', cause: 'bad-token', message: 'gateway: wrong or missing token' }],
};

const tokens: TokenList = { tokens: [{ id: '0123456789abcdef', name: 'crawler-eu', prefix: 'kvm2g_0123456789abcdef', createdAt: '2026-12-01T00:00:00Z' }] };

const proxy = managedProxyView();

/** `element` rendered with a query cache already holding these answers; the HTML and its text. */
function render(element: ReactElement, answers: { gateway?: GatewayView; tokens?: TokenList }) {
  const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
  if (answers.gateway) client.setQueryData(gatewayKeys.view, answers.gateway);
  if (answers.tokens) client.setQueryData(gatewayKeys.tokens, answers.tokens);
  client.setQueryData(proxyKeys.list, { proxies: [proxy] });
  client.setQueryData(proxySetKeys.list, { proxysets: [] });
  const html = renderToStaticMarkup(createElement(QueryClientProvider, { client }, element));
  const text = html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
  return { html, text };
}

describe('the Gateway page', () => {
  it('shows the URL with the chosen token, its secret left as a placeholder that the page explains', () => {
    const { html, text } = render(createElement(GatewayPage), { gateway: view, tokens });
    expect(text).toContain('http://crawler:kvm2g_0123456789abcdef_PASTE_SECRET_HERE@gw.lan:8888');
    expect(text).toContain('The secret of crawler-eu was shown only when it was created: replace PASTE_SECRET_HERE');
    expect(html).toContain('New gateway token');
    expect(html).toMatch(/<label for="gateway-token"[^>]*>Gateway token<\/label>/);
  });

  it('gives the four snippets built from that URL, and the username grammar', () => {
    const { html, text } = render(createElement(GatewayPage), { gateway: view, tokens });
    expect(text).toContain("curl --proxy 'http://crawler:kvm2g_0123456789abcdef_PASTE_SECRET_HERE@gw.lan:8888' 'https://example.com/'");
    for (const title of ['Python requests', 'Scrapy', 'Playwright (Node.js)']) expect(html).toContain(`>${title}</h3>`);
    expect(text).toContain('server: "http://gw.lan:8888"');
    for (const form of ['<client>', '-set-<set>', '-label-<key>=<value>', '-session-<id>', '-proxy-<name>']) expect(text).toContain(form);
  });

  it('shows the live totals over all Proxies, traffic per Proxy linked to its page, per token, per session', () => {
    const { html, text } = render(createElement(GatewayPage), { gateway: view, tokens });
    expect(text).toMatch(/Bytes in 3\.0 MiB .*Bytes out 3\.0 KiB .*Open tunnels 3 .*Tunnels 10 /);
    expect(html).toContain('href="/proxies/edge-1"');
    expect(text).toContain('3 reset, 1 refused');
    expect(text).toContain('fedcba9876543210 (revoked)');
    expect(text).toMatch(/user-42 edge-1 1 2 2\.0 MiB 2\.0 KiB/);
  });

  it('lists the last refusals with their reason in words and the client address', () => {
    const { text } = render(createElement(GatewayPage), { gateway: view, tokens });
    expect(text).toContain('192.168.1.77 unknown or revoked gateway token (bad-token) gateway: wrong or missing token');
  });

  it('says what to do when there are no tokens and no traffic yet', () => {
    const idle: GatewayView = { ...view, proxies: [], tokens: [], sessions: [], refusals: [] };
    const { text } = render(createElement(GatewayPage), { gateway: idle, tokens: { tokens: [] } });
    expect(text).toContain('No gateway tokens yet: create one here');
    expect(text).toContain('http://crawler:GATEWAY_TOKEN@gw.lan:8888');
    expect(text).toContain('No traffic yet Point a crawler at the URL above');
    expect(text).toContain('No refusals');
  });

  it('says why the gateway is not listening and what to do', () => {
    const error = 'cannot listen on 0.0.0.0:8888: listen EADDRINUSE; set GATEWAY_PORT to a free port (0 turns the gateway off)';
    const { text } = render(createElement(GatewayPage), { gateway: { ...view, listening: false, error }, tokens });
    expect(text).toContain('The gateway is not listening');
    expect(text).toContain(error);
  });

  it('says the gateway is off and how to turn it on, and offers no URL', () => {
    const { text } = render(createElement(GatewayPage), { gateway: { ...view, enabled: false, port: 0 }, tokens });
    expect(text).toContain('The gateway is off');
    expect(text).toContain('GATEWAY_PORT=0');
    expect(text).toContain('set GATEWAY_PORT to the port crawlers connect to');
    expect(text).not.toContain('http://crawler');
    expect(text).not.toContain('Bytes in');
  });
});

describe("the overview's gateway tile", () => {
  it('shows bytes in and out and the open tunnels', () => {
    const { text } = render(createElement(GatewayTile), { gateway: view });
    expect(text).toMatch(/Gateway .*Bytes in 3\.0 MiB Bytes out 3\.0 KiB Open tunnels 3/);
  });

  it('is not there while the gateway is off', () => {
    expect(render(createElement(GatewayTile), { gateway: { ...view, enabled: false } }).html).toBe('');
  });
});

describe('the figures', () => {
  it('sum every Proxy once', () => {
    expect(gatewayTotals(view)).toEqual({ bytesIn: 3 * MiB, bytesOut: 3072, open: 3, tunnels: 10 });
  });

  it('name failures most frequent first, none when there were none', () => {
    expect(failureSummary({ refused: 1, reset: 3, timeout: 0 })).toBe('3 reset, 1 refused');
    expect(failureSummary({})).toBe('none');
  });
});
