// Which of our proxies a gateway connection goes through, or why none: the selector from the
// username narrows the Ready proxies to a pool; a session sticks by rendezvous weight, anything
// else rotates by least open tunnels. Pure: the server passes the Proxies as the API shows them
// (Ready = Running plus a passing probe, Deleting as soon as a delete is asked), the ProxySets that
// exist, the open-tunnel counts, and the proxies that take no new tunnels now.
//
// Retries: a connection makes at most `maxAttempts` attempts, the server passing the proxies it
// already tried; a tried proxy is never chosen again in that connection. A sticky session retried
// thus goes to its next-highest weight, and a session whose proxy is suspect or draining goes there
// too until that proxy is clear again (HRW: its own proxy comes back first once eligible). A
// pinned proxy (-proxy) is never replaced by another.
import { proxySetLabel } from '@/lib/api/proxyset-spec';
import type { ProxyView } from '@/lib/api/proxies';
import { proxyUrl } from '@/server/control/probe';
import { refusal, type GatewayRefusal } from './refusals';
import { rendezvousChoose } from './rendezvous';
import type { TunnelRotation } from './rotation';
import type { GatewaySelector } from './username';

/** The first attempt and at most 2 more. */
export const maxAttempts = 3;

/** What the choice reads of a Proxy; a ProxyView is one. */
export type GatewayProxy = Pick<ProxyView, 'name' | 'labels' | 'port'> & { status: Pick<ProxyView['status'], 'phase' | 'ip'> };

/** Why a Ready proxy takes no new tunnels: its last connection failed (until the monitor's probe
 * clears it), or it is being deleted or replaced (its open tunnels get GATEWAY_DRAIN). */
export type Unavailability = 'suspect' | 'draining';

export interface ChooseRequest {
  selector: GatewaySelector;
  proxies: readonly GatewayProxy[];
  /** names of the ProxySets that exist; a set is also known while a Proxy carries its label */
  sets: ReadonlySet<string>;
  /** the proxies this connection already tried (and that failed), in order */
  tried?: readonly string[];
  unavailable?: ReadonlyMap<string, Unavailability>;
  rotation: TunnelRotation;
  /** open tunnels through a proxy now (the server's accounting) */
  openTunnels: (proxy: string) => number;
}

export interface ChosenProxy {
  name: string;
  /** `http://<ip>:<port>`, as the discovery API gives it */
  url: string;
  /** 1 for the first attempt of the connection */
  attempt: number;
}

export type Choice = { ok: true; proxy: ChosenProxy } | { ok: false; refusal: GatewayRefusal };

const unavailableText: Record<Unavailability, string> = {
  suspect: 'suspect (a connection through it just failed; the monitor is probing it)',
  draining: 'draining (being deleted or replaced)',
};

const isReady = (proxy: GatewayProxy): boolean => proxy.status.phase === 'Ready' && Boolean(proxy.status.ip);

const hasLabel = (labels: Record<string, string>, key: string, value: string): boolean => Object.hasOwn(labels, key) && labels[key] === value;

function matches(proxy: GatewayProxy, selector: GatewaySelector): boolean {
  if (selector.set !== undefined && !hasLabel(proxy.labels, proxySetLabel, selector.set)) return false;
  return Object.entries(selector.labels).every(([key, value]) => hasLabel(proxy.labels, key, value));
}

/** `set "eu", label tier=fast`, or `any proxy`. */
function describePool(selector: GatewaySelector): string {
  const parts = [
    ...(selector.set !== undefined ? [`set "${selector.set}"`] : []),
    ...Object.entries(selector.labels).map(([key, value]) => `label ${key}=${value}`),
  ];
  return parts.length > 0 ? parts.join(', ') : 'any proxy';
}

const chose = (proxy: GatewayProxy, tried: readonly string[]): Choice => ({
  ok: true,
  proxy: { name: proxy.name, url: proxyUrl(proxy.status.ip as string, proxy.port), attempt: tried.length + 1 },
});

const refuse = (...args: Parameters<typeof refusal>): Choice => ({ ok: false, refusal: refusal(...args) });

function choosePinned(request: ChooseRequest, name: string, tried: readonly string[]): Choice {
  const proxy = request.proxies.find((candidate) => candidate.name === name);
  const quoted = `proxy "${name}"`;
  if (!proxy) return refuse('proxy-unknown', `${quoted} unknown: no Proxy has that name`, { proxy: name });
  if (tried.includes(name)) return refuse('upstream-failed', `${quoted} failed: -proxy pins it, so no other is tried`, { proxy: name, tried: [...tried] });
  const why = request.unavailable?.get(name);
  if (why) return refuse('proxy-not-ready', `${quoted} not Ready: ${unavailableText[why]}`, { proxy: name });
  if (!isReady(proxy)) {
    const state = proxy.status.phase === 'Ready' ? 'no address yet' : proxy.status.phase;
    return refuse('proxy-not-ready', `${quoted} not Ready (${state})`, { proxy: name });
  }
  return chose(proxy, tried);
}

function noneEligible(request: ChooseRequest, pool: { matching: number; ready: readonly GatewayProxy[] }, tried: readonly string[]): Choice {
  const { selector } = request;
  const described = describePool(selector);
  const set = selector.set !== undefined ? { set: selector.set } : {};
  if (tried.length > 0) return refuse('upstream-failed', `${tried.join(', ')} failed: no other Ready proxy for ${described}`, { ...set, tried: [...tried] });
  if (pool.matching === 0) return refuse('no-ready-proxy', `no Ready proxy for ${described}: no Proxy matches`, set);
  if (pool.ready.length === 0) return refuse('no-ready-proxy', `no Ready proxy for ${described}: ${pool.matching} match, none Ready`, set);
  const byCause = (cause: Unavailability) => pool.ready.filter((proxy) => request.unavailable?.get(proxy.name) === cause).map((proxy) => proxy.name);
  const causes = (['suspect', 'draining'] as const).filter((cause) => byCause(cause).length > 0).map((cause) => `${cause}: ${byCause(cause).join(', ')}`);
  return refuse('no-ready-proxy', `no Ready proxy for ${described}: ${pool.ready.length} Ready, but ${causes.join('; ')}`, set);
}

/** The proxy for this attempt of a connection, or the refusal the crawler gets. */
export function chooseProxy(request: ChooseRequest): Choice {
  const { selector } = request;
  const tried = request.tried ?? [];
  if (selector.proxy !== undefined) return choosePinned(request, selector.proxy, tried);
  if (tried.length >= maxAttempts) {
    return refuse('upstream-failed', `${tried.length} attempts failed (${tried.join(', ')}): no more are tried`, { tried: [...tried] });
  }
  if (
    selector.set !== undefined &&
    !request.sets.has(selector.set) &&
    !request.proxies.some((proxy) => hasLabel(proxy.labels, proxySetLabel, selector.set as string))
  ) {
    return refuse('set-unknown', `set "${selector.set}" unknown: no ProxySet has that name`, { set: selector.set });
  }
  const matching = request.proxies.filter((proxy) => matches(proxy, selector));
  const ready = matching.filter(isReady);
  const eligible = ready.filter((proxy) => !tried.includes(proxy.name) && !request.unavailable?.has(proxy.name));
  if (eligible.length === 0) return noneEligible(request, { matching: matching.length, ready }, tried);
  const names = eligible.map((proxy) => proxy.name);
  const name =
    selector.session !== undefined ? rendezvousChoose(selector.session, names) : request.rotation.pick({ candidates: names, openTunnels: request.openTunnels });
  const proxy = eligible.find((candidate) => candidate.name === name) as GatewayProxy;
  return chose(proxy, tried);
}
