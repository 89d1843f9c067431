// The proxy-set controller (leader only): every interval, and soon after a set or one of its
// members changes, one pass over every set. A pass reads the sets, the Proxies and the provider
// health once, gathers each set's facts, lets the pure decisions (proxy-set-decide.ts) say what to
// do, applies that through the Proxy service (the set as owner), and writes the set's status only
// when it changed. Hosts are measured and members diagnosed only when a decision needs it, so a
// pass with nothing to do costs the reads and nothing else.
import { isDeepStrictEqual } from 'node:util';
import type { ProxyRecord } from '@/server/store/proxies';
import type { ProxySetRecord } from '@/server/store/proxy-sets';
import type { Store } from '@/server/store';
import type { TimerHandle } from './clock';
import { errorMessage } from '@/lib/error-message';
import type { ProviderLookup } from './provider-set';
import type { ProxyService } from './proxy-service';
import { type DecideInput, decide, type SetHost } from './proxy-set-decide';
import { replacementCandidates, replacementsAllowed } from './proxy-set-replacement';
import { applySetActions } from './proxy-set-apply';
import { memberFacts, membersBySet, memberTemplateHash, setPolicy, templateHash } from './proxy-set-members';
import { budgetReleased, nextSetStatus } from './proxy-set-status';
import { setHostFacts } from './proxy-set-hosts';
import { type LoopOptions, Ticker } from './ticker';

export interface ProxySetControllerOptions extends LoopOptions {
  store: Store;
  proxies: ProxyService;
  providers: ProviderLookup;
  /** the first failing step of a member's diagnosis, null when none failed */
  diagnose: (member: string) => Promise<string | null>;
  /** how long a member's diagnosis is reused (default 1 min) */
  diagnosisTtlMs?: number;
  /** told after the set's status was written or the set removed (live pages refetch it) */
  onWritten?: (name: string) => void;
}

const memberChangeDelayMs = 1_000;

export class ProxySetController {
  private readonly ticker: Ticker;
  private readonly diagnoses = new Map<string, { firstFailure: string | null; atMs: number }>();
  /** each member's template hash by uid and generation (a spec change bumps it): hashing 500 specs every pass adds up */
  private readonly hashes = new Map<string, { generation: number; hash: string }>();
  private kicked: Promise<void> | undefined;
  private soon: TimerHandle | undefined;
  private running = false;

  constructor(private readonly options: ProxySetControllerOptions) {
    this.ticker = new Ticker({
      name: 'proxy-sets',
      clock: options.clock,
      intervalMs: options.intervalMs,
      logger: options.logger,
      run: (signal) => this.pass(signal),
    });
  }

  start(): void {
    this.running = true;
    this.ticker.start();
  }

  stop(): Promise<void> {
    this.running = false;
    if (this.soon !== undefined) this.options.clock.clearTimeout(this.soon);
    this.soon = undefined;
    return this.ticker.stop();
  }

  /**
   * A Proxy was written: when it may be a member (`<set>-<suffix>`), a pass within a second, so a
   * member turning Ready moves a rollout on without waiting the interval; bursts make one pass.
   */
  proxyChanged(name: string): void {
    if (!this.running || this.soon !== undefined || !/-[a-z0-9]{5}$/.test(name)) return;
    this.soon = this.options.clock.setTimeout(() => {
      this.soon = undefined;
      void this.kick();
    }, memberChangeDelayMs);
  }

  /** A pass soon (one for any number of kicks while it waits). */
  kick(): Promise<void> {
    this.kicked ??= this.ticker.runNow().finally(() => {
      this.kicked = undefined;
    });
    return this.kicked;
  }

  /** One pass over every set. */
  async pass(signal?: AbortSignal): Promise<void> {
    const { store } = this.options;
    const sets = await store.proxySets.list();
    if (sets.length === 0) return;
    const proxies = await store.proxies.list();
    const members = membersBySet(proxies);
    // Diagnoses of Proxies that are gone are of no more use.
    const names = new Set(proxies.map((proxy) => proxy.name));
    for (const name of this.diagnoses.keys()) if (!names.has(name)) this.diagnoses.delete(name);
    const uids = new Set(proxies.map((proxy) => proxy.uid));
    for (const uid of this.hashes.keys()) if (!uids.has(uid)) this.hashes.delete(uid);
    for (const set of sets) {
      if (signal?.aborted) return;
      try {
        await this.reconcile(set, members.get(set.name) ?? [], signal);
      } catch (err) {
        this.options.logger.warn({ set: set.name, error: errorMessage(err) }, 'proxy-set pass failed');
        await store.events.record(set.uid, { type: 'Warning', reason: 'PassFailed', message: errorMessage(err), atMs: this.options.clock.now() });
      }
    }
  }

  private async reconcile(set: ProxySetRecord, members: ProxyRecord[], signal?: AbortSignal): Promise<void> {
    const { store, clock, proxies } = this.options;
    if (set.deletionRequestedAt) {
      for (const member of members) if (!member.deletionRequestedAt) await proxies.delete(member.name, set.name);
      if (members.length === 0) {
        await store.proxySets.remove(set.uid);
        this.options.onWritten?.(set.name);
        this.options.logger.info({ set: set.name }, 'proxy set removed: its members are gone');
      }
      return;
    }
    const provider = this.options.providers.get(set.spec.template.provider);
    if (!provider) {
      await store.events.record(set.uid, {
        type: 'Warning',
        reason: 'ProviderUnavailable',
        message: `provider ${JSON.stringify(set.spec.template.provider)} is not running; nothing changes until it is`,
        atMs: clock.now(),
      });
      return;
    }
    const nowMs = clock.now();
    const healthOnly = await setHostFacts({ provider, template: set.spec.template, health: store.health, measure: false });
    const hostsDown = hostsDownAfter(set.status.hostsDown, healthOnly, nowMs);
    const input = await this.input({
      set,
      members,
      hosts: healthOnly.map((host) => ({ name: host.name, eligible: host.eligible, ...downSince(hostsDown, host.name) })),
      nowMs,
    });
    let decision = decide(input);
    if (decision.actions.some((action) => action.kind === 'create' || action.kind === 'replace')) {
      const measured = await setHostFacts({ provider, template: set.spec.template, health: store.health, measure: true, signal });
      decision = decide({ ...input, hosts: measured.map((host) => ({ name: host.name, eligible: host.eligible, ...downSince(hostsDown, host.name) })) });
    }
    const applied = await applySetActions({ set, members, decision, proxies, store, clock, logger: this.options.logger });
    const status = nextSetStatus({ set, decision, applied, hostsDown, members, nowMs });
    if (isDeepStrictEqual(status, set.status)) return;
    await store.proxySets.writeStatus(set.uid, status);
    this.options.onWritten?.(set.name);
  }

  /** The decisions' input; members a pass may replace are diagnosed first (unless replacing is stopped). */
  private async input(options: { set: ProxySetRecord; members: ProxyRecord[]; hosts: SetHost[]; nowMs: number }): Promise<DecideInput> {
    const { set, members, hosts, nowMs } = options;
    const policy = setPolicy(set.spec);
    const hash = templateHash(set.name, set.spec.template);
    const displaced = new Set(set.status.displaced);
    const hashOf = (member: ProxyRecord) => {
      const known = this.hashes.get(member.uid);
      if (known?.generation === member.generation) return known.hash;
      const computed = memberTemplateHash(member.spec);
      this.hashes.set(member.uid, { generation: member.generation, hash: computed });
      return computed;
    };
    const facts = members.map((member) => memberFacts(member, { setName: set.name, template: set.spec.template, templateHash: hash, displaced, hashOf }));
    const exhausted = set.status.exhaustedGeneration === set.generation;
    const history = set.status.replacements.map((record) => ({
      member: record.member,
      atMs: Date.parse(record.at),
      cause: record.cause,
      firstFailure: record.firstFailure,
    }));
    const budgetSince = budgetReleased(set) ? { budgetSinceMs: nowMs } : set.status.budgetSince ? { budgetSinceMs: Date.parse(set.status.budgetSince) } : {};
    // Only as many as the budget lets this pass replace (oldest first, as the decisions take them):
    // a diagnosis takes seconds, and a set of 500 that never comes up must not diagnose 500.
    const allowed = replacementsAllowed({ policy, history, exhausted, nowMs, ...budgetSince });
    const candidates = replacementCandidates({ policy, members: facts, hosts, nowMs }).sort((a, b) => a.createdAtMs - b.createdAtMs);
    for (const candidate of candidates.slice(0, allowed)) await this.diagnose(candidate.name, nowMs);
    return {
      policy,
      members: facts.map((member) => {
        const cached = this.diagnoses.get(member.name);
        return cached?.firstFailure ? { ...member, diagnosis: cached.firstFailure } : member;
      }),
      hosts,
      history,
      exhausted,
      ...budgetSince,
      nowMs,
    };
  }

  private async diagnose(member: string, nowMs: number): Promise<void> {
    const cached = this.diagnoses.get(member);
    if (cached && nowMs - cached.atMs < (this.options.diagnosisTtlMs ?? 60_000)) return;
    let firstFailure: string | null;
    try {
      firstFailure = await this.options.diagnose(member);
    } catch (err) {
      this.options.logger.warn({ proxy: member, error: errorMessage(err) }, 'diagnosing a set member failed');
      firstFailure = null;
    }
    this.diagnoses.set(member, { firstFailure, atMs: nowMs });
  }
}

const downSince = (hostsDown: Record<string, string>, host: string) => (hostsDown[host] ? { downSinceMs: Date.parse(hostsDown[host]) } : {});

/** Since when each host has been Unreachable: kept while it stays so, started now for a new one, dropped once it answers. */
function hostsDownAfter(before: Record<string, string>, hosts: Array<{ name: string; unreachable: boolean }>, nowMs: number): Record<string, string> {
  const after: Record<string, string> = {};
  for (const host of hosts) if (host.unreachable) after[host.name] = before[host.name] ?? new Date(nowMs).toISOString();
  return after;
}
