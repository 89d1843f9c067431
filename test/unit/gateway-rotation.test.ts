import { describe, expect, it } from 'vitest';
import { TunnelRotation } from '@/server/gateway/rotation';

const counts = (open: Record<string, number>) => (proxy: string) => open[proxy] ?? 0;

describe('least-tunnels rotation for connections without a session', () => {
  it('picks the proxy with the fewest open tunnels', () => {
    const rotation = new TunnelRotation();
    expect(rotation.pick({ candidates: ['a', 'b', 'c'], openTunnels: counts({ a: 3, b: 1, c: 2 }) })).toBe('b');
    expect(rotation.pick({ candidates: ['a', 'b', 'c'], openTunnels: counts({ a: 0, b: 1, c: 2 }) })).toBe('a');
  });

  it('takes turns among proxies with equally few tunnels, in name order whatever order the pool comes in', () => {
    const rotation = new TunnelRotation();
    const picks = Array.from({ length: 7 }, () => rotation.pick({ candidates: ['c', 'a', 'b'], openTunnels: counts({}) }));
    expect(picks).toEqual(['a', 'b', 'c', 'a', 'b', 'c', 'a']);
  });

  it('takes turns only among the least loaded', () => {
    const rotation = new TunnelRotation();
    const open = counts({ a: 1, b: 0, c: 0, d: 2 });
    const picks = Array.from({ length: 4 }, () => rotation.pick({ candidates: ['a', 'b', 'c', 'd'], openTunnels: open }));
    expect(picks).toEqual(['b', 'c', 'b', 'c']);
  });

  it('spreads a burst of new tunnels evenly when each pick opens one', () => {
    const rotation = new TunnelRotation();
    const open: Record<string, number> = { a: 2 };
    for (let i = 0; i < 11; i++) {
      const proxy = rotation.pick({ candidates: ['a', 'b', 'c'], openTunnels: counts(open) }) as string;
      open[proxy] = (open[proxy] ?? 0) + 1;
    }
    expect(open).toEqual({ a: 5, b: 4, c: 4 });
  });

  it('carries on after the last proxy it gave when the pool changes', () => {
    const rotation = new TunnelRotation();
    const none = counts({});
    expect(rotation.pick({ candidates: ['a', 'b', 'c'], openTunnels: none })).toBe('a');
    expect(rotation.pick({ candidates: ['a', 'b', 'c'], openTunnels: none })).toBe('b');
    expect(rotation.pick({ candidates: ['a', 'c', 'd'], openTunnels: none })).toBe('c');
    expect(rotation.pick({ candidates: ['a', 'd'], openTunnels: none })).toBe('d');
    expect(rotation.pick({ candidates: ['a', 'd'], openTunnels: none })).toBe('a');
  });

  it('gives nothing from an empty pool', () => {
    expect(new TunnelRotation().pick({ candidates: [], openTunnels: counts({}) })).toBeUndefined();
  });
});
