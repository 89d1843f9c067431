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
    accounting.refused({ at: 1, client: '10.0.0.9', cause: 'bad-credentials', message: 'wrong gateway token' });
    accounting.refused({ at: 2, client: '10.0.0.9', cause: 'bad-credentials', message: 'wrong gateway token' });
    accounting.refused({ at: 3, client: '10.0.0.7', cause: 'no-ready-proxy', message: 'no Ready proxy in set eu' });

    const snapshot = accounting.snapshot();
    expect(snapshot.proxies[0]?.failures).toEqual({ 'upstream-refused': 1 });
    expect(snapshot.refusals).toEqual({ 'bad-credentials': 2, 'no-ready-proxy': 1 });
    expect(snapshot.recentRefusals.map((refusal) => refusal.at)).toEqual([3, 2, 1]);
    expect(await metrics.registry.metrics()).toContain('proxy_operator_gateway_connections_total{proxy="",result="bad-credentials"} 2');
  });

  it('ignores reports for a connection it never saw open', () => {
    const { accounting } = accountingWithMetrics();
    accounting.progress(42, { bytesIn: 10, bytesOut: 10 });
    accounting.closed(42, { bytesIn: 10, bytesOut: 10, result: 'ok' });
    expect(accounting.snapshot()).toEqual({ proxies: [], tokens: [], sessions: [], refusals: {}, recentRefusals: [] });
  });

  it('lists the busiest sticky sessions, most bytes first, on the Proxy of their latest connection', () => {
    const { accounting } = accountingWithMetrics();
    accounting.opened({ connection: 1, proxy: 'p1', token: 't', session: 'small' });
    accounting.opened({ connection: 2, proxy: 'p1', token: 't', session: 'big' });
    accounting.closed(1, { bytesIn: 10, bytesOut: 0, result: 'ok' });
    accounting.closed(2, { bytesIn: 900, bytesOut: 0, result: 'ok' });
    accounting.opened({ connection: 3, proxy: 'p2', token: 't', session: 'big' });
    accounting.progress(3, { bytesIn: 100, bytesOut: 0 });

    expect(accounting.snapshot().sessions).toEqual([
      { session: 'big', proxy: 'p2', bytesIn: 1000, bytesOut: 0, open: 1, tunnels: 2 },
      { session: 'small', proxy: 'p1', bytesIn: 10, bytesOut: 0, open: 0, tunnels: 1 },
    ]);
  });

  it('keeps the last 20 refusals and a bounded number of sessions, dropping idle ones first', () => {
    const { accounting } = accountingWithMetrics();
    for (let at = 0; at < 25; at += 1) accounting.refused({ at, client: 'c', cause: 'bad-credentials', message: 'm' });
    accounting.opened({ connection: 0, proxy: 'p1', token: 't', session: 'still-open' });
    for (let id = 1; id <= 1500; id += 1) {
      accounting.opened({ connection: id, proxy: 'p1', token: 't', session: `s${id}` });
      accounting.closed(id, { bytesIn: id, bytesOut: 0, result: 'ok' });
    }
    accounting.progress(0, { bytesIn: 1_000_000, bytesOut: 0 });

    const snapshot = accounting.snapshot();
    expect(snapshot.recentRefusals).toHaveLength(20);
    expect(snapshot.recentRefusals[0]?.at).toBe(24);
    expect(snapshot.sessions.map((session) => session.session)).toEqual([
      'still-open',
      's1500',
      's1499',
      's1498',
      's1497',
      's1496',
      's1495',
      's1494',
      's1493',
      's1492',
    ]);
  });
});
