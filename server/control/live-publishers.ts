// What the control plane publishes on the live feed: every write to a Proxy's record (whoever made
// it: the API, a reconcile pass, a probe, the final removal) as the Proxy's new view, each provider
// check as the targets GET /api/providers shows, and each instance lifecycle change.
import type { InstanceChange } from '@/server/providers/contract';
import type { Store } from '@/server/store';
import type { LiveFeed } from './live-feed';
import { toProxyView } from './proxy-view';

/**
 * Publishes a `proxy` message per Proxy written, once per turn of the event loop however many
 * writes a pass made, and only when the view changed. Returns the function that stops it.
 */
export function publishProxyWrites(options: { store: Store; feed: LiveFeed }): () => void {
  const { store, feed } = options;
  const pending = new Set<string>();
  const lastSent = new Map<string, string>();
  let stopped = false;
  const flush = async () => {
    const names = [...pending];
    pending.clear();
    for (const name of names) {
      // The runtime stopped between the write and now.
      if (stopped) return;
      const record = await store.proxies.get(name);
      const proxy = record ? toProxyView(record) : null;
      const json = JSON.stringify(proxy);
      if (lastSent.get(name) === json) continue;
      if (proxy) lastSent.set(name, json);
      else lastSent.delete(name);
      feed.publish({ kind: 'proxy', name, proxy });
    }
  };
  const unwatch = store.proxies.watch((name) => {
    if (pending.size === 0) queueMicrotask(() => void flush().catch(() => undefined));
    pending.add(name);
  });
  return () => {
    stopped = true;
    unwatch();
  };
}

/** The provider's latest check as stored (what GET /api/providers shows). */
export async function publishHealth(options: { store: Store; feed: LiveFeed; provider: string }): Promise<void> {
  const { store, feed, provider } = options;
  const targets = (await store.health.latest(provider))[0]?.targets ?? [];
  feed.publish({ kind: 'health', provider, targets });
}

export function publishInstanceChange(options: { feed: LiveFeed; provider: string; change: InstanceChange; proxy: string | undefined }): void {
  const { feed, provider, change, proxy } = options;
  feed.publish({
    kind: 'domain',
    provider,
    target: change.target,
    name: change.name,
    providerID: change.providerID,
    event: change.event,
    ...(proxy !== undefined ? { proxy } : {}),
    ...(change.state !== undefined ? { state: change.state } : {}),
    ...(change.removed ? { removed: true as const } : {}),
  });
}
