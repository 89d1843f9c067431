// What the API does with Proxies: validated create / update / delete that commit to the store and
// queue the Proxy for the reconciler, plus the read side (list, get, events, discovery). Every
// input is parsed here with the shared schema, whatever the route already did.
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { proxySetLabel } from '@/lib/api/proxyset-spec';
import {
  type DiscoveredProxy,
  fieldErrors,
  proxyCreateSchema,
  type ProxyEventView,
  type ProxyPhase,
  type ProxySpec,
  proxyUpdateSchema,
  type ProxyView,
} from '@/lib/proxy-spec';
import type { ProbeSample, Store } from '@/server/store';
import type { ProxyRecord } from '@/server/store/proxies';
import { type Clock, isoTime } from './clock';
import { ProxyDeletingError, ProxyNotFoundError, ProxyValidationError } from './errors';
import { proxyUrl } from './probe';
import { ProxyOwnedError } from './proxy-set-errors';
import { ownerOf } from './proxy-set-members';
import { toProxyView } from './proxy-view';

export interface ProxyFilter {
  /** every label given must match */
  labels?: Record<string, string>;
  mode?: ProxySpec['mode'];
  provider?: string;
  phase?: ProxyPhase;
}

export interface ProxyServiceOptions {
  store: Store;
  clock: Clock;
  /** names of the configured providers (running or not) */
  providerNames: () => string[];
  /** called after every committed change so the reconciler picks the Proxy up */
  onChange: (name: string) => void;
  newUid?: () => string;
}

function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new ProxyValidationError(fieldErrors(parsed.error));
  return parsed.data;
}

const matchesLabels = (labels: Record<string, string>, wanted: Record<string, string> = {}): boolean =>
  Object.entries(wanted).every(([key, value]) => labels[key] === value);

export class ProxyService {
  constructor(private readonly options: ProxyServiceOptions) {}

  async list(filter: ProxyFilter = {}): Promise<ProxyView[]> {
    return (await this.options.store.proxies.list())
      .map(toProxyView)
      .filter(
        (view) =>
          matchesLabels(view.labels, filter.labels) &&
          (filter.mode === undefined || view.mode === filter.mode) &&
          (filter.provider === undefined || view.provider === filter.provider) &&
          (filter.phase === undefined || view.status.phase === filter.phase),
      );
  }

  async get(name: string): Promise<ProxyView> {
    return toProxyView(await this.record(name));
  }

  /** `owner`: the ProxySet creating its member (only a set may set the proxyset label). */
  async create(input: unknown, owner?: string): Promise<ProxyView> {
    const { name, ...spec } = parseOrThrow(proxyCreateSchema, input);
    if (spec.mode === 'Managed') this.requireProvider(spec.provider);
    if (ownerOf({ spec }) !== owner) throw new ProxyValidationError([{ path: `labels.${proxySetLabel}`, message: 'is set by a ProxySet on its members only' }]);
    const uid = (this.options.newUid ?? randomUUID)();
    const { store, clock } = this.options;
    const record = await store.transaction(async (tx) => {
      const inserted = await tx.proxies.insert({ uid, name, spec, now: isoTime(clock) });
      await tx.events.record(uid, { type: 'Normal', reason: 'Created', message: 'Proxy created', atMs: clock.now() });
      return inserted;
    });
    this.options.onChange(name);
    return toProxyView(record);
  }

  /** Replaces the spec; cloud-init left out (both fields) keeps the stored one. `mode` and `provider` are immutable. */
  async update(name: string, input: unknown, owner?: string): Promise<ProxyView> {
    const update = parseOrThrow(proxyUpdateSchema, input);
    const record = await this.record(name);
    if (record.deletionRequestedAt) throw new ProxyDeletingError(name);
    await this.requireNotOwned(record, { owner, what: 'edited' });
    // Adding or changing the set label would move a Proxy into a set: only a set does that.
    if (update.labels[proxySetLabel] !== owner && update.labels[proxySetLabel] !== ownerOf(record)) {
      throw new ProxyValidationError([{ path: `labels.${proxySetLabel}`, message: 'is set by a ProxySet on its members only' }]);
    }
    const current = record.spec;
    if (update.mode !== current.mode) throw new ProxyValidationError([{ path: 'mode', message: `cannot change (is ${current.mode})` }]);
    let spec: ProxySpec;
    if (update.mode === 'Managed' && current.mode === 'Managed') {
      if (update.provider !== current.provider)
        throw new ProxyValidationError([{ path: 'provider', message: `cannot change (is ${JSON.stringify(current.provider)})` }]);
      const { cloudInit, cloudInitBase64, ...rest } = update;
      const source = cloudInit !== undefined || cloudInitBase64 !== undefined ? { cloudInit: cloudInit ?? '', cloudInitBase64 } : current;
      spec = { ...rest, cloudInit: source.cloudInit, ...(source.cloudInitBase64 !== undefined ? { cloudInitBase64: source.cloudInitBase64 } : {}) };
    } else {
      spec = update as ProxySpec;
    }
    if (JSON.stringify(spec) === JSON.stringify(current)) return toProxyView(record);
    const { store, clock } = this.options;
    await store.transaction(async (tx) => {
      await tx.proxies.updateSpec({ uid: record.uid, spec, now: isoTime(clock) });
      await tx.events.record(record.uid, { type: 'Normal', reason: 'SpecUpdated', message: 'spec updated', atMs: clock.now() });
    });
    this.options.onChange(name);
    return this.get(name);
  }

  /** Requests deletion; the record stays (phase Deleting) until the provider's Delete succeeded. */
  async delete(name: string, owner?: string): Promise<ProxyView> {
    const record = await this.record(name);
    await this.requireNotOwned(record, { owner, what: 'deleted' });
    await this.options.store.proxies.requestDeletion({ uid: record.uid, now: isoTime(this.options.clock) });
    this.options.onChange(name);
    return this.get(name);
  }

  async events(name: string, limit = 100): Promise<ProxyEventView[]> {
    return this.options.store.events.list((await this.record(name)).uid, limit);
  }

  /** Its probes since `sinceMs` (epoch ms), oldest first; thinned past a day. */
  async probes(name: string, sinceMs: number): Promise<ProbeSample[]> {
    return this.options.store.probes.history({ proxyUid: (await this.record(name)).uid, sinceMs });
  }

  /** Ready (Running and healthy) proxies, for crawler clients. */
  async discover(filter: { labels?: Record<string, string> } = {}): Promise<DiscoveredProxy[]> {
    return (await this.list({ labels: filter.labels, phase: 'Ready' })).map((view) => ({
      name: view.name,
      url: proxyUrl(view.status.ip as string, view.port),
      labels: view.labels,
      ...(view.status.egressIP ? { egressIP: view.status.egressIP } : {}),
    }));
  }

  private async record(name: string): Promise<ProxyRecord> {
    const record = await this.options.store.proxies.get(name);
    if (!record) throw new ProxyNotFoundError(name);
    return record;
  }

  /** A member of an existing set changes only through it (`owner` is that set). */
  private async requireNotOwned(record: ProxyRecord, options: { owner: string | undefined; what: 'deleted' | 'edited' }): Promise<void> {
    const set = ownerOf(record);
    if (set === undefined || set === options.owner) return;
    if (await this.options.store.proxySets.get(set)) throw new ProxyOwnedError(record.name, set, options.what);
  }

  private requireProvider(provider: string): void {
    if (!this.options.providerNames().includes(provider)) {
      throw new ProxyValidationError([{ path: 'provider', message: `${JSON.stringify(provider)} is not a configured provider` }]);
    }
  }
}
