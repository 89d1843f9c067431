// Bulk actions on the Proxies table: plain Proxies are deleted, set members replaced through their set.
import { describe, expect, it } from 'vitest';
import type { ProxyView } from '@/lib/proxy-spec';
import { planBulk, summarise } from '@/components/proxies/bulk-plan';

const proxy = (name: string, labels: Record<string, string> = {}): ProxyView => ({
  uid: name,
  name,
  mode: 'Managed',
  port: 3128,
  labels,
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
  status: { phase: 'Ready', healthy: true, conditions: [], specHash: 'h' },
});

describe('bulk actions', () => {
  it('delete plain Proxies and replace members grouped by their set', () => {
    const plan = planBulk([
      proxy('a'),
      proxy('crawl-aaaaa', { proxyset: 'crawl' }),
      proxy('b'),
      proxy('crawl-bbbbb', { proxyset: 'crawl' }),
      proxy('eu-ccccc', { proxyset: 'eu' }),
    ]);
    expect(plan.deletable).toEqual(['a', 'b']);
    expect([...plan.replaceable]).toEqual([
      ['crawl', ['crawl-aaaaa', 'crawl-bbbbb']],
      ['eu', ['eu-ccccc']],
    ]);
    expect(plan.members).toBe(3);
  });

  it('say how many went through and name each refusal', () => {
    expect(summarise([{ name: 'a' }, { name: 'b', error: 'is being deleted' }], 'deleted')).toBe('1 of 2 deleted. Refused: b: is being deleted');
  });
});
