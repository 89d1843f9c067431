// A `proxyset` message on the live feed makes the Sets page and that set's page refetch; other
// sets' pages and the plan/preview queries of the forms are left alone.
import { QueryClient } from '@tanstack/react-query';
import { afterEach, describe, expect, it } from 'vitest';
import { applyLiveMessages } from '@/components/app/live-cache';
import { proxySetKeys } from '@/components/query-keys';

let client: QueryClient | undefined;
afterEach(() => client?.clear());

const invalidated = (queryClient: QueryClient, key: readonly unknown[]) => queryClient.getQueryState(key)?.isInvalidated ?? false;

describe('live proxyset messages', () => {
  it('invalidate the list, the named set and its events, and nothing else', () => {
    client = new QueryClient();
    const keys = [
      proxySetKeys.list,
      proxySetKeys.detail('crawl'),
      proxySetKeys.events('crawl'),
      proxySetKeys.detail('other'),
      ['proxysets', 'plan', 'crawl', {}],
    ];
    for (const key of keys) client.setQueryData(key, {});
    applyLiveMessages(client, [{ kind: 'proxyset', name: 'crawl' }]);
    expect(keys.map((key) => invalidated(client!, key))).toEqual([true, true, true, false, false]);
  });
});
