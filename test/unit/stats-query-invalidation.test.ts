// What a live update calls on a new stats sample: every stats query goes stale, or, when the sample
// names its host and Proxies, only that host's, those Proxies' and the overview's traffic.
import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { invalidateStatsQueries, statsKeys } from '@/components/stats/queries';

function seeded(): QueryClient {
  const client = new QueryClient();
  for (const key of [
    statsKeys.proxy('alpha', '1h'),
    statsKeys.proxy('alpha', '7d'),
    statsKeys.proxy('beta', '1h'),
    statsKeys.host('kvm2-home', 'hv-1', '1h'),
    statsKeys.host('kvm2-home', 'hv-2', '1h'),
    statsKeys.traffic,
    ['proxies', 'list'],
  ]) {
    client.setQueryData(key, { seeded: true });
  }
  return client;
}

const stale = (client: QueryClient) =>
  client
    .getQueryCache()
    .getAll()
    .filter((query) => query.isStale())
    .map((query) => query.queryKey.join('/'))
    .sort();

describe('invalidateStatsQueries', () => {
  it('marks every stats query stale, and nothing else', async () => {
    const client = seeded();
    await invalidateStatsQueries(client);
    expect(stale(client)).toEqual(['stats/host/kvm2-home/hv-1/1h', 'stats/host/kvm2-home/hv-2/1h', 'stats/proxy/alpha/1h', 'stats/proxy/alpha/7d', 'stats/proxy/beta/1h', 'stats/traffic']);
  });

  it('with a sample: only its host, its Proxies (every window) and the traffic', async () => {
    const client = seeded();
    await invalidateStatsQueries(client, { provider: 'kvm2-home', target: 'hv-1', proxies: ['alpha'] });
    expect(stale(client)).toEqual(['stats/host/kvm2-home/hv-1/1h', 'stats/proxy/alpha/1h', 'stats/proxy/alpha/7d', 'stats/traffic']);
  });
});
