import { describe, expect, it } from 'vitest';
import { GatewayAccounting } from '@/server/gateway/accounting';
import { createMetrics } from '@/server/telemetry/metrics';

function accountingWithMetrics() {
  const metrics = createMetrics();
  return { metrics, accounting: new GatewayAccounting({ metrics }) };
}

describe('GatewayAccounting', () => {
  it('adds what an open tunnel moved since its last report, so totals move before it closes', async () => {
    const { metrics, accounting } = accountingWithMetrics();
    accounting.opened({ connection: 1, proxy: 'p1', token: 't1' });
    accounting.progress(1, { bytesIn: 1000, bytesOut: 200 });
    accounting.progress(1, { bytesIn: 1500, bytesOut: 250 });

    expect(accounting.snapshot().proxies).toEqual([{ proxy: 'p1', bytesIn: 1500, bytesOut: 250, open: 1, tunnels: 1, failures: {} }]);
    const text = await metrics.registry.metrics();
    expect(text).toContain('proxy_operator_gateway_bytes_total{proxy="p1",direction="in"} 1500');
    expect(text).toContain('proxy_operator_gateway_bytes_total{proxy="p1",direction="out"} 250');
    expect(text).toContain('proxy_operator_gateway_tunnels_open{proxy="p1"} 1');
  });

  it('counts the bytes of the final report once and closes the tunnel with its result', async () => {
    const { metrics, accounting } = accountingWithMetrics();
    accounting.opened({ connection: 7, proxy: 'p1', token: 't1' });
    accounting.progress(7, { bytesIn: 100, bytesOut: 10 });
    accounting.closed(7, { bytesIn: 300, bytesOut: 30, result: 'ok' });
    accounting.closed(7, { bytesIn: 300, bytesOut: 30, result: 'ok' });

    const [proxy] = accounting.snapshot().proxies;
    expect(proxy).toMatchObject({ bytesIn: 300, bytesOut: 30, open: 0, tunnels: 1 });
    const text = await metrics.registry.metrics();
    expect(text).toContain('proxy_operator_gateway_tunnels_open{proxy="p1"} 0');
    expect(text).toContain('proxy_operator_gateway_connections_total{proxy="p1",result="ok"} 1');
  });

  it('keeps totals per gateway token beside the per-Proxy ones', () => {
    const { accounting } = accountingWithMetrics();
    accounting.opened({ connection: 1, proxy: 'p1', token: 'crawler-a' });
    accounting.opened({ connection: 2, proxy: 'p2', token: 'crawler-a' });
    accounting.opened({ connection: 3, proxy: 'p2', token: 'crawler-b' });
    accounting.closed(1, { bytesIn: 10, bytesOut: 1, result: 'ok' });
    accounting.closed(2, { bytesIn: 20, bytesOut: 2, result: 'ok' });
    accounting.progress(3, { bytesIn: 5, bytesOut: 5 });

    expect(accounting.snapshot().tokens).toEqual([
      { token: 'crawler-a', bytesIn: 30, bytesOut: 3, open: 0, tunnels: 2 },
      { token: 'crawler-b', bytesIn: 5, bytesOut: 5, open: 1, tunnels: 1 },
    ]);
  });

  it('counts failures by cause per Proxy, and refusals that reached no Proxy apart', async () => {
    const { metrics, accounting } = accountingWithMetrics();
    accounting.opened({ connection: 1, proxy: 'p1', token: 't1' });
    accounting.closed(1, { bytesIn: 0, bytesOut: 0, result: 'upstream-refused' });
    accounting.refused('bad-credentials');
    accounting.refused('bad-credentials');
    accounting.refused('no-ready-proxy');

    const snapshot = accounting.snapshot();
    expect(snapshot.proxies[0].failures).toEqual({ 'upstream-refused': 1 });
    expect(snapshot.refusals).toEqual({ 'bad-credentials': 2, 'no-ready-proxy': 1 });
    expect(await metrics.registry.metrics()).toContain('proxy_operator_gateway_connections_total{proxy="",result="bad-credentials"} 2');
  });

  it('ignores reports for a connection it never saw open', () => {
    const { accounting } = accountingWithMetrics();
    accounting.progress(42, { bytesIn: 10, bytesOut: 10 });
    accounting.closed(42, { bytesIn: 10, bytesOut: 10, result: 'ok' });
    expect(accounting.snapshot()).toEqual({ proxies: [], tokens: [], refusals: {} });
  });
});
