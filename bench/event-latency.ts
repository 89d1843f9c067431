// `npm run bench:events` (on the lab): how fast a change made on the host behind the control
// plane's back reaches GET /api/events. A managed domain on lab1 is suspended, resumed and
// destroyed (20 changes; after each destroy the reconciler creates it again); for each, the time
// from starting `virsh` to the domain's lifecycle message and to the Proxy's new status on the
// stream. For comparison, in the same run, a page polling GET /api/proxies/{name} every 5 s (the
// dashboard's interval) while the stream is down; and, computed, what polling saw before events
// drove the reconciler: the next resync (RESYNC_INTERVAL, 1 min by default) plus the page's poll.
// Target: median under 1 s.
// Per change it also prints what the change cost (bench/event-work.ts): the libvirt RPCs the server
// made, by who made them (the event handling itself, the reconcile pass it queued, the browser's
// refetches), and the fetches a browser with the host page and the Proxy's page open made.
import type { ProxyView } from '@/lib/api/proxies';
import type { LiveMessage } from '@/lib/api/live';
import { instanceName } from '@/server/control/names';
import { settingsFromEnv } from '@/server/control/settings';
import { handlers as h } from '@/test/unit/api-harness';
import { startLabApi } from '@/test/lab/api-lab-support';
import { loadLab, virsh } from '@/test/lab/harness/lab';
import { watchLiveEvents } from '@/test/lab/live-events-support';
import { captureRpcs, openDashboard, type RpcCount } from './event-work';

const changes = 20;
const pagePollMs = 5_000;
const medianTargetMs = 1_000;
const cycle = ['suspend', 'resume', 'suspend', 'resume', 'destroy'] as const;
type Change = (typeof cycle)[number];

const paused = (view: ProxyView) => view.status.conditions.some((condition) => condition.reason === 'InstancePaused');
const stopped = (view: ProxyView) => view.status.conditions.some((condition) => condition.reason === 'InstanceStopped');
/** What the Proxy's status shows once the control plane has seen each change. */
const statusShows: Record<Change, (view: ProxyView) => boolean> = { suspend: paused, resume: (view) => !paused(view), destroy: stopped };
const eventPrefix: Record<Change, string> = { suspend: 'Suspended/', resume: 'Resumed/', destroy: 'Stopped/' };

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}
const summary = (values: number[]) =>
  values.length === 0 ? 'none' : `median ${quantile(values, 0.5).toFixed(0)} ms, p95 ${quantile(values, 0.95).toFixed(0)} ms (n=${values.length})`;

/** The sum of the resync's and the page poll's phases, both uniform: its quantiles by a fixed grid. */
function resyncPollingModel(resyncMs: number): number[] {
  const steps = 200;
  const samples: number[] = [];
  for (let i = 0; i < steps; i += 1) for (let j = 0; j < steps; j += 1) samples.push(((i + 0.5) / steps) * resyncMs + ((j + 0.5) / steps) * pagePollMs);
  return samples;
}

/** `DomainGetState x2, DomainLookupByName`: the RPCs by name, in first-call order. */
function rpcNames(rpcs: RpcCount[]): string {
  const counts = new Map<string, number>();
  for (const { rpc } of rpcs) counts.set(rpc, (counts.get(rpc) ?? 0) + 1);
  return [...counts].map(([rpc, count]) => (count > 1 ? `${rpc} x${count}` : rpc)).join(', ') || 'none';
}

const mean = (values: number[]) => (values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length);

async function main(): Promise<void> {
  const rpcs = captureRpcs();
  const lab = loadLab();
  const api = await startLabApi(lab);
  const polls: Array<{ at: number; view: ProxyView }> = [];
  let poller: ReturnType<typeof setInterval> | undefined;
  try {
    const name = api.proxyName('latency');
    const domain = instanceName(name);
    const body = { name, mode: 'Managed', provider: api.entryName, placement: { zone: 'lab1', machineType: 'small', image: 'lab' }, cloudInit: '' };
    const created = await api.call(h.proxies.POST, '/api/proxies', 'POST', { session: api.session, body });
    if (created.status !== 201) throw new Error(`creating the Proxy: ${created.status} ${created.text}`);
    // Running on its host with the control plane caught up (the lab's guests get no address, so
    // the Proxy itself stays Provisioning): what every change starts from.
    const settled = async () => {
      const deadline = Date.now() + 180_000;
      for (;;) {
        const state = (await virsh(['domstate', domain]).catch(() => '')).trim();
        const view = await api.runtime.services.proxies.get(name);
        if (state === 'running' && view.status.providerID && !paused(view) && !stopped(view)) {
          await api.runtime.loops.reconciler.idle();
          return;
        }
        if (Date.now() > deadline) throw new Error(`${domain} did not settle running (virsh: ${state}, phase ${view.status.phase})`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    };
    await settled();
    const stream = await watchLiveEvents(api);
    const browser = await openDashboard({ api, host: 'lab1', proxy: name, messages: () => stream.received.map((entry) => entry.message) });
    const cost = { eventRpcs: [] as number[], reconcileRpcs: [] as number[], refetchRpcs: [] as number[], fetches: [] as number[], listings: [] as number[] };
    poller = setInterval(() => {
      void api.call(h.proxy.GET, `/api/proxies/${name}`, 'GET', { session: api.session, params: { name } }).then((answer) => {
        if (answer.status === 200) polls.push({ at: Date.now(), view: answer.json as ProxyView });
      });
    }, pagePollMs);

    const latency = { domain: [] as number[], status: [] as number[], polled: [] as number[] };
    const missed: string[] = [];
    for (let index = 0; index < changes; index += 1) {
      const change = cycle[index % cycle.length] as Change;
      // A random moment within the poller's period, so the polled figure is not tied to its phase.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * pagePollMs));
      const startedAt = Date.now();
      await virsh([change, domain]);
      const domainMessage = await stream
        .next({
          sinceMs: startedAt,
          matches: (message: LiveMessage) => message.kind === 'domain' && message.name === domain && message.event.startsWith(eventPrefix[change]),
          timeoutMs: 15_000,
          what: `${change} message`,
        })
        .catch(() => undefined);
      const statusMessage = await stream
        .next({
          sinceMs: startedAt,
          matches: (message: LiveMessage) => message.kind === 'proxy' && message.name === name && message.proxy !== null && statusShows[change](message.proxy),
          timeoutMs: 15_000,
          what: `${change} status`,
        })
        .catch(() => undefined);
      if (domainMessage) latency.domain.push(domainMessage.at - startedAt);
      else missed.push(`${index + 1}: ${change} (domain message)`);
      if (statusMessage) latency.status.push(statusMessage.at - startedAt);
      else missed.push(`${index + 1}: ${change} (status message)`);
      // What the change cost, once the reconciler and the browser are done with it.
      await api.runtime.loops.reconciler.idle();
      await browser.idle();
      const made = rpcs.since(startedAt, Date.now());
      const fetched = browser.take();
      const by = (owner: RpcCount['owner']) => made.filter((rpc) => rpc.owner === owner);
      const listings = [...fetched].filter(([key]) => key.includes('"hosts"')).reduce((sum, [, count]) => sum + count, 0);
      cost.eventRpcs.push(by('event handling').length);
      cost.reconcileRpcs.push(by('reconcile pass').length);
      cost.refetchRpcs.push(by('browser refetch').length);
      cost.fetches.push([...fetched.values()].reduce((sum, count) => sum + count, 0));
      cost.listings.push(listings);
      // The page's view: the first poll after the change that shows it (the poller keeps its own phase).
      const deadline = Date.now() + pagePollMs * 3;
      let polled: number | undefined;
      while (polled === undefined && Date.now() < deadline) {
        polled = polls.find((poll) => poll.at >= startedAt && statusShows[change](poll.view))?.at;
        if (polled === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      if (polled !== undefined) latency.polled.push(polled - startedAt);
      console.log(
        `${String(index + 1).padStart(2)} ${change.padEnd(7)} domain message ${domainMessage ? `${domainMessage.at - startedAt} ms` : 'MISSED'}, status message ${statusMessage ? `${statusMessage.at - startedAt} ms` : 'MISSED'}, 5 s page poll ${polled !== undefined ? `${polled - startedAt} ms` : 'not seen'}`,
      );
      console.log(
        `   RPCs: event handling ${by('event handling').length} (${rpcNames(by('event handling'))}); reconcile pass ${by('reconcile pass').length}; browser refetches ${by('browser refetch').length}; sampler and others ${by('other').length} (${rpcNames(by('other'))}). Browser fetches: ${[...fetched].map(([key, count]) => `${key} x${count}`).join(', ') || 'none'}`,
      );
      if (change === 'destroy') await settled();
    }
    browser.stop();
    await stream.close();

    const resyncMs = settingsFromEnv({}).resyncIntervalMs;
    const model = resyncPollingModel(resyncMs);
    console.log(`\n${changes} changes (suspend, resume, destroy) of a managed domain on lab1, virsh started → message on /api/events:`);
    console.log(
      `  domain lifecycle message   ${summary(latency.domain)}  target median < ${medianTargetMs} ms: ${quantile(latency.domain, 0.5) < medianTargetMs ? 'met' : 'MISSED'}`,
    );
    console.log(`  Proxy status message       ${summary(latency.status)}`);
    console.log(
      `  page polling every ${pagePollMs / 1000} s     ${summary(latency.polled)} (measured in this run: events drive the reconciler, the page polls; a destroyed domain is recreated before most polls see it)`,
    );
    console.log(
      `  resync + page polling      median ${quantile(model, 0.5).toFixed(0)} ms, p95 ${quantile(model, 0.95).toFixed(0)} ms (computed: RESYNC_INTERVAL ${resyncMs / 1000} s plus the ${pagePollMs / 1000} s poll, uniform phases; what the page saw before events)`,
    );
    if (missed.length > 0) console.log(`  missed: ${missed.join('; ')}`);
    console.log(`\nWhat a change cost (mean per change; the reconcile pass is the reconciler's own level-based read of its instance):`);
    console.log(`  server RPCs for the event itself       ${mean(cost.eventRpcs).toFixed(1)}`);
    console.log(`  server RPCs for the browser's refetches ${mean(cost.refetchRpcs).toFixed(1)} (host listings ${mean(cost.listings).toFixed(1)})`);
    console.log(`  server RPCs of the reconcile pass       ${mean(cost.reconcileRpcs).toFixed(1)}`);
    console.log(`  browser fetches                         ${mean(cost.fetches).toFixed(1)} (host page and Proxy page open)`);
    console.log(
      `event-latency domain_median_ms=${quantile(latency.domain, 0.5).toFixed(0)} domain_p95_ms=${quantile(latency.domain, 0.95).toFixed(0)} status_median_ms=${quantile(latency.status, 0.5).toFixed(0)} status_p95_ms=${quantile(latency.status, 0.95).toFixed(0)} event_rpcs=${mean(cost.eventRpcs).toFixed(1)} refetch_rpcs=${mean(cost.refetchRpcs).toFixed(1)} reconcile_rpcs=${mean(cost.reconcileRpcs).toFixed(1)} browser_fetches=${mean(cost.fetches).toFixed(1)} host_listings=${mean(cost.listings).toFixed(1)} poll_median_ms=${quantile(latency.polled, 0.5).toFixed(0)} resync_model_median_ms=${quantile(model, 0.5).toFixed(0)}`,
    );
  } finally {
    clearInterval(poller);
    await api.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
