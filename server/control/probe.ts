// One proxy health probe: an HTTP request THROUGH the proxy at http://<ip>:<port> to the target
// URL (absolute-form GET for http targets, so a stock Squid that allows CONNECT only to 443 still
// passes; CONNECT for https). Without a target URL nothing leaves the proxy: the probe asks the
// proxy port itself and any HTTP answer counts as alive. An optional IP-echo URL, fetched through
// the proxy too, gives the proxy's egress address.
import { isIP } from 'node:net';
import type { Dispatcher } from 'undici';
import { type Clock, systemClock, timeoutSignal } from './clock';
import { errorMessage } from '@/lib/error-message';

export type ProbeReason = 'TargetReachable' | 'ProxyAnswered' | 'BadStatus' | 'Timeout' | 'ConnectionFailed' | 'ProtocolError';

export interface ProbeRequest {
  /** the proxy's address (IPv4, IPv6 or host name) and port */
  host: string;
  port: number;
  targetUrl?: string;
  ipEchoUrl?: string;
  timeoutMs: number;
  signal?: AbortSignal;
  clock?: Clock;
}

export interface ProbeResult {
  healthy: boolean;
  reason: ProbeReason;
  message: string;
  latencyMs: number;
  statusCode?: number;
  egressIP?: string;
}

class ProbeTimeoutError extends Error {
  readonly code = 'ERR_PROBE_TIMEOUT';
}

export const proxyUrl = (host: string, port: number): string => `http://${isIP(host) === 6 ? `[${host}]` : host}:${port}`;

// Error codes (on the error or its cause) → reason; anything else reads as a protocol problem.
const reasonByCode: Record<string, ProbeReason> = {
  ERR_PROBE_TIMEOUT: 'Timeout',
  UND_ERR_CONNECT_TIMEOUT: 'Timeout',
  UND_ERR_HEADERS_TIMEOUT: 'Timeout',
  UND_ERR_BODY_TIMEOUT: 'Timeout',
  ETIMEDOUT: 'Timeout',
  ECONNREFUSED: 'ConnectionFailed',
  ECONNRESET: 'ConnectionFailed',
  EHOSTUNREACH: 'ConnectionFailed',
  ENETUNREACH: 'ConnectionFailed',
  ENOTFOUND: 'ConnectionFailed',
  EAI_AGAIN: 'ConnectionFailed',
  UND_ERR_SOCKET: 'ConnectionFailed',
  UND_ERR_ABORTED: 'BadStatus',
};

function reasonOf(err: unknown): ProbeReason {
  const seen = new Set<unknown>();
  for (let current: unknown = err; current instanceof Error && !seen.has(current); current = current.cause) {
    seen.add(current);
    if (current instanceof ProbeTimeoutError) return 'Timeout';
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && reasonByCode[code]) return reasonByCode[code];
  }
  return 'ProtocolError';
}

// undici is loaded on the first probe, not at server start.
const loadUndici = () => import('undici');

async function dispatcherFor(options: { proxy: string; targetUrl?: string }): Promise<Dispatcher> {
  const { Agent, ProxyAgent } = await loadUndici();
  // No target: talk to the proxy port as an ordinary HTTP server.
  if (!options.targetUrl) return new Agent({ connections: 1 });
  return new ProxyAgent({ uri: options.proxy, proxyTunnel: false, connections: 1 });
}

/** Extracts an IP from an echo service's answer: plain text, or JSON with `ip` or `origin`. */
export function parseEchoedIp(body: string): string | undefined {
  const text = body.trim();
  let candidate = text;
  if (text.startsWith('{')) {
    try {
      const json = JSON.parse(text) as { ip?: unknown; origin?: unknown };
      candidate = String(json.ip ?? json.origin ?? '');
    } catch {
      return undefined;
    }
  }
  candidate = candidate.split(',')[0]?.trim() ?? '';
  return isIP(candidate) ? candidate : undefined;
}

/** What an echo service's answer can take: an address, in plain text or a small JSON object. */
const echoBodyLimitBytes = 1024;

/**
 * The first `limit` bytes of a body as text, then the body is closed: whatever answers through
 * the proxy chooses the body, and an endless one must neither fill memory nor hold the probe.
 */
async function readPrefix(
  body: AsyncIterable<Buffer> & { destroy(): unknown; on(event: 'error', listener: () => void): unknown },
  limit: number,
): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      length += chunk.length;
      if (length >= limit) break;
    }
  } finally {
    // undici reports destroying an unread body as an error nobody needs.
    body.on('error', () => {});
    body.destroy();
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}

async function fetchEgressIp(options: { proxy: string; url: string; signal: AbortSignal }): Promise<string | undefined> {
  const { ProxyAgent, request } = await loadUndici();
  const dispatcher = new ProxyAgent({ uri: options.proxy, proxyTunnel: false, connections: 1 });
  try {
    const response = await request(options.url, { dispatcher, signal: options.signal, headers: { accept: 'text/plain, application/json' } });
    if (response.statusCode >= 400) {
      await response.body.dump();
      return undefined;
    }
    return parseEchoedIp(await readPrefix(response.body, echoBodyLimitBytes));
  } finally {
    void dispatcher.destroy().catch(() => undefined);
  }
}

export async function probeProxy(probe: ProbeRequest): Promise<ProbeResult> {
  const proxy = proxyUrl(probe.host, probe.port);
  const clock = probe.clock ?? systemClock;
  const { signal, dispose } = timeoutSignal({
    clock,
    timeoutMs: probe.timeoutMs,
    parent: probe.signal,
    reason: () => new ProbeTimeoutError(`no answer within ${probe.timeoutMs} ms`),
  });
  const { request } = await loadUndici();
  const dispatcher = await dispatcherFor({ proxy, targetUrl: probe.targetUrl });
  const started = performance.now();
  try {
    const response = await request(probe.targetUrl ?? `${proxy}/`, { dispatcher, signal, method: 'GET', headers: { 'user-agent': 'kvm2-proxies-probe' } });
    const latencyMs = performance.now() - started;
    await response.body.dump({ limit: 64 * 1024 });
    const statusCode = response.statusCode;
    if (probe.targetUrl && statusCode >= 400)
      return { healthy: false, reason: 'BadStatus', message: `the target answered HTTP ${statusCode} through the proxy`, latencyMs, statusCode };
    const result: ProbeResult = probe.targetUrl
      ? { healthy: true, reason: 'TargetReachable', message: `the target answered HTTP ${statusCode} through the proxy`, latencyMs, statusCode }
      : {
          healthy: true,
          reason: 'ProxyAnswered',
          message: `the proxy port answered HTTP ${statusCode} (no PROBE_URL set: the path through the proxy is not checked)`,
          latencyMs,
          statusCode,
        };
    if (probe.ipEchoUrl) {
      const egressIP = await fetchEgressIp({ proxy, url: probe.ipEchoUrl, signal }).catch(() => undefined);
      if (egressIP) result.egressIP = egressIP;
    }
    return result;
  } catch (err) {
    const reason = reasonOf(signal.aborted ? signal.reason : err);
    return { healthy: false, reason, message: signal.aborted ? errorMessage(signal.reason) : errorMessage(err), latencyMs: performance.now() - started };
  } finally {
    dispose();
    void dispatcher.destroy().catch(() => undefined);
  }
}
