// A new stats answer for the host page: the query cache keeps the points arrays of domains that got
// no new sample (structural sharing), and those domains keep the very same series objects, so their
// rows and sparklines (memoised on them) do not render again; a domain with a new sample gets a new
// series with it.
import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import type { HostStats } from '@/lib/api/stats';
import { type DomainActivitySeries, domainActivities } from '@/components/stats/domain-activity';
import { statsKeys } from '@/components/query-keys';

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 12, minute)).toISOString();
const point = (minute: number, cpu: number) => ({ at: at(minute), cpuPercent: cpu, netRxBps: 1000, netTxBps: 500 });
const answer = (quietPoints: number, busyPoints: number): HostStats => ({
  provider: 'lab',
  host: 'kvm-a',
  window: '1h',
  stepSeconds: 60,
  points: [],
  domains: [
    { domain: 'quiet', points: Array.from({ length: quietPoints }, (_, minute) => point(minute, 3)) },
    { domain: 'busy', points: Array.from({ length: busyPoints }, (_, minute) => point(minute, 40)) },
  ],
});

describe('domainActivities across answers', () => {
  it('keeps the series of a domain whose points did not change, and makes a new one for a domain with a new sample', () => {
    const client = new QueryClient();
    const key = statsKeys.host('lab', 'kvm-a', '1h');
    const seen = new WeakMap();
    client.setQueryData(key, answer(3, 3));
    const first = domainActivities(client.getQueryData<HostStats>(key), seen);
    // The refetch as the cache stores it: the busy domain has one more sample.
    client.setQueryData(key, answer(3, 4));
    const second = domainActivities(client.getQueryData<HostStats>(key), seen);
    expect(second.get('quiet')).toBe(first.get('quiet'));
    expect(second.get('busy')).not.toBe(first.get('busy'));
    expect((second.get('busy') as DomainActivitySeries).cpu).toEqual([40, 40, 40, 40]);
    expect((second.get('quiet') as DomainActivitySeries).traffic).toEqual([1500, 1500, 1500]);
  });
});
