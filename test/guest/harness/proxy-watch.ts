// Polls a Proxy through the API until a condition holds, noting when each phase was first seen:
// the boot of a real guest under software emulation takes minutes, and the report wants to know
// where they went.
import type { ProxyEventView, ProxyView } from '@/lib/proxy-spec';
import type { ApiClient } from './api-client';

export class ProxyWaitError extends Error {
  readonly code = 'GUEST_PROXY_WAIT';
  constructor(message: string) {
    super(message);
    this.name = 'ProxyWaitError';
  }
}

export class PhaseTimeline {
  /** phase -> seconds after `startedAt` when a poll first saw it */
  readonly firstSeen = new Map<string, number>();
  readonly order: string[] = [];

  constructor(readonly startedAt = performance.now()) {}

  note(phase: string): void {
    if (this.firstSeen.has(phase)) return;
    this.firstSeen.set(phase, (performance.now() - this.startedAt) / 1000);
    this.order.push(phase);
  }

  toJSON(): Record<string, number> {
    return Object.fromEntries([...this.firstSeen].map(([phase, seconds]) => [phase, Math.round(seconds * 10) / 10]));
  }
}

export interface WaitOptions {
  api: ApiClient;
  name: string;
  /** what "done" means */
  until: (view: ProxyView | undefined) => boolean;
  what: string;
  timeoutMs: number;
  timeline?: PhaseTimeline;
  intervalMs?: number;
  /** ends the wait (with the signal's reason) before the next poll */
  signal?: AbortSignal;
}

/** Resolves with the last view seen (undefined when the proxy is gone); a Failed proxy ends the wait. */
export async function waitForProxy(options: WaitOptions): Promise<ProxyView | undefined> {
  const deadline = Date.now() + options.timeoutMs;
  let last: ProxyView | undefined;
  for (;;) {
    options.signal?.throwIfAborted();
    last = await options.api.proxy(options.name);
    if (last) options.timeline?.note(last.status.phase);
    if (options.until(last)) return last;
    if (last?.status.phase === 'Failed') {
      throw new ProxyWaitError(`${options.name} failed while waiting for ${options.what}: ${JSON.stringify(last.status)}`);
    }
    if (Date.now() > deadline) {
      const events = await options.api.events(options.name).catch(() => []);
      throw new ProxyWaitError(
        `${options.name}: no ${options.what} within ${options.timeoutMs / 1000} s; last status ${JSON.stringify(last?.status)}; events ${JSON.stringify(events.slice(0, 15))}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 2_000));
  }
}

/**
 * Seconds from "Proxy created" to the reconciler's milestones, from the Proxy's own events (a poll
 * misses a Running that lasts less than its interval: the probe runs as soon as the VM has an IP).
 */
export function milestonesFromEvents(newestFirst: ProxyEventView[]): Record<string, number> {
  const events = [...newestFirst].reverse();
  const at = (match: (event: ProxyEventView) => boolean) => {
    const event = events.find(match);
    return event ? Date.parse(event.firstAt) : undefined;
  };
  const created = at((event) => event.reason === 'Created' && event.message === 'Proxy created');
  const milestones: Record<string, number | undefined> = {
    instanceCreatedSeconds: at((event) => event.reason === 'Created' && event.message.startsWith('instance ')),
    runningSeconds: at((event) => event.message === 'Provisioning → Running'),
    readySeconds: at((event) => event.reason === 'Healthy'),
  };
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(milestones)) {
    if (created !== undefined && value !== undefined) out[key] = Math.round((value - created) / 100) / 10;
  }
  return out;
}
