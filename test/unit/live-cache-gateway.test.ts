// A `gateway` message on the live feed makes the gateway's traffic refetch (the Gateway page and the
// overview's tile share its query); the tokens list and everything else are left alone.
import { QueryClient } from '@tanstack/react-query';
import { afterEach, describe, expect, it } from 'vitest';
import { applyLiveMessages } from '@/components/app/live-cache';
import { gatewayKeys, proxyKeys } from '@/components/query-keys';

let client: QueryClient | undefined;
afterEach(() => client?.clear());

const invalidated = (queryClient: QueryClient, key: readonly unknown[]) => queryClient.getQueryState(key)?.isInvalidated ?? false;

describe('live gateway messages', () => {
  it('invalidate the gateway view only', () => {
    client = new QueryClient();
    const keys = [gatewayKeys.view, gatewayKeys.tokens, proxyKeys.list];
    for (const key of keys) client.setQueryData(key, {});
    applyLiveMessages(client, [{ kind: 'gateway' }]);
    expect(keys.map((key) => invalidated(client!, key))).toEqual([true, false, false]);
  });
});
