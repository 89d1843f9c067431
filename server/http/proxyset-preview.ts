// POST /api/proxysets/preview: the hosts a set's members would go to now, for the create form
// (server/control/proxy-set-preview.ts), changing nothing.
import type { ProxySetCreate } from '@/lib/api/proxyset-spec';
import type { ProxySetPreview } from '@/lib/api/proxysets';
import { previewSet } from '@/server/control/proxy-set-preview';
import type { Runtime } from '@/server/runtime';
import { runningProvider } from './providers-api';

export async function proxySetPreview(runtime: Runtime, set: ProxySetCreate): Promise<ProxySetPreview> {
  const provider = runningProvider(runtime, set.template.provider);
  return previewSet({ provider, set, health: runtime.store.health, nowMs: Date.now() });
}
