// A health monitor over one provider as the runtime starts it (a round every 60 s, 15 s for a
// check), on the real clock and with quiet logs, for tests that drive its rounds with runOnce().
import { systemClock } from '@/server/control/clock';
import { Monitor } from '@/server/control/monitor';
import type { Provider } from '@/server/providers/contract';
import type { Store } from '@/server/store';
import { providerSetOf, silentLogger } from '@/test/fakes/control-plane';

export async function monitorOf(options: { provider: Provider; store: Store; graceMs?: number }): Promise<Monitor> {
  const { provider, store, graceMs } = options;
  return new Monitor({
    providers: await providerSetOf([provider]),
    store,
    clock: systemClock,
    logger: silentLogger(),
    intervalMs: 60_000,
    timeoutMs: 15_000,
    graceMs,
  });
}
