// Live updates of the stats charts: every sampling round publishes one `stats` message per host on
// the runtime's live feed, and the dashboard's cache matcher (components/app/live-cache.ts) finds
// the host's charts and its Proxies' charts by their stats query keys, and no other host's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStatsQueryOf } from '@/components/app/live-cache';
import { statsKeys } from '@/components/query-keys';
import type { LiveEvent } from '@/server/control/live-feed';
import { startApi, type ApiHarness } from './api-harness';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api?.close();
});

describe('stats on the live feed', () => {
  it('publishes one stats message per sampled host and round', async () => {
    const events: LiveEvent[] = [];
    const unsubscribe = api.runtime.services.live.subscribe({ event: (event) => events.push(event), closed: () => {} }, { owner: 'test', limit: 1 });
    await api.runtime.loops.sampler.runOnce();
    unsubscribe();
    expect(events.map((event) => event.message).filter((message) => message.kind === 'stats')).toEqual([
      { kind: 'stats', provider: 'kvm2-home', host: 'hv-1' },
    ]);
  });

  it('reaches the host’s charts and its Proxies’ charts, in every window, and no other host’s', () => {
    const message = { kind: 'stats' as const, provider: 'kvm2-home', host: 'hv-1' };
    const onHv1 = { provider: 'kvm2-home', host: 'hv-1' };
    expect(isStatsQueryOf([...statsKeys.host('kvm2-home', 'hv-1', '1h')], message)).toBe(true);
    expect(isStatsQueryOf([...statsKeys.proxy('alpha', '7d', onHv1)], message)).toBe(true);
    expect(isStatsQueryOf([...statsKeys.host('kvm2-home', 'hv-2', '1h')], message)).toBe(false);
    expect(isStatsQueryOf([...statsKeys.proxy('beta', '1h', { provider: 'kvm2-home', host: 'hv-2' })], message)).toBe(false);
  });
});
