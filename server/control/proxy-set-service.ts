// What the API does with ProxySets: validated create / update / scale / pause / resume / replace /
// delete that commit to the store and wake the set controller, plus the read side. Members are
// changed only through the Proxy service, naming the set as their owner. Every change by the admin
// bumps the set's generation, which is also what releases a ReplacementsExhausted stop.
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { proxySetCreateSchema, proxySetReplaceSchema, proxySetScaleSchema, type ProxySetSpec, proxySetUpdateSchema } from '@/lib/api/proxyset-spec';
import type { ProxySetPlan, ProxySetView } from '@/lib/api/proxysets';
import { fieldErrors, type ProxyEventView } from '@/lib/proxy-spec';
import type { Store } from '@/server/store';
import type { Metrics } from '@/server/telemetry/metrics';
import type { ProxySetRecord } from '@/server/store/proxy-sets';
import type { ProxyRecord } from '@/server/store/proxies';
import { type Clock, isoTime } from './clock';
import type { ProxyService } from './proxy-service';
import { ProxySetDeletingError, ProxySetNotFoundError, ProxySetValidationError } from './proxy-set-errors';
import { membersBySet } from './proxy-set-members';
import { planOf } from './proxy-set-plan';
import { toProxySetView } from './proxy-set-view';

export interface ProxySetServiceOptions {
  store: Store;
  clock: Clock;
  proxies: ProxyService;
  /** names of the configured providers (running or not) */
  providerNames: () => string[];
  /** called after every committed change so the controller looks at the set (and live pages refetch it) */
  onChange: (name: string) => void;
  newUid?: () => string;
}

function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new ProxySetValidationError(fieldErrors(parsed.error));
  return parsed.data;
}

export class ProxySetService {
  constructor(private readonly options: ProxySetServiceOptions) {}

  async list(): Promise<ProxySetView[]> {
    const { store, clock } = this.options;
    const sets = await store.proxySets.list();
    const members = membersBySet(await store.proxies.list());
    return sets.map((set) => toProxySetView(set, members.get(set.name) ?? [], clock.now()));
  }

  async get(name: string): Promise<ProxySetView> {
    const record = await this.record(name);
    return toProxySetView(record, await this.members(name), this.options.clock.now());
  }

  async create(input: unknown): Promise<ProxySetView> {
    const { name, ...spec } = parseOrThrow(proxySetCreateSchema, input);
    this.requireProvider(spec.template.provider);
    const { store, clock } = this.options;
    const uid = (this.options.newUid ?? randomUUID)();
    await store.transaction(async (tx) => {
      await tx.proxySets.insert({ uid, name, spec, now: isoTime(clock) });
      await tx.events.record(uid, { type: 'Normal', reason: 'Created', message: `ProxySet created with ${spec.replicas} replicas`, atMs: clock.now() });
    });
    this.options.onChange(name);
    return this.get(name);
  }

  /** The whole set again; cloud-init left out keeps the stored one; the provider cannot change. */
  async update(name: string, input: unknown): Promise<ProxySetView> {
    const { record, spec } = await this.updated(name, input);
    return this.write(record, { spec, event: planOf(record, spec, await this.members(name)).message });
  }

  /** What a PUT with `input` would do (nothing, settings, relabel, a rolling replacement of N members), changing nothing. */
  async plan(name: string, input: unknown): Promise<ProxySetPlan> {
    const { record, spec } = await this.updated(name, input);
    return planOf(record, spec, await this.members(name));
  }

  async scale(name: string, input: unknown): Promise<ProxySetView> {
    const { replicas } = parseOrThrow(proxySetScaleSchema, input);
    const record = await this.changeable(name);
    return this.write(record, { spec: { ...record.spec, replicas }, event: `scaled from ${record.spec.replicas} to ${replicas} replicas` });
  }

  /** Holds a rolling change where it is; the count is still kept. */
  async pause(name: string): Promise<ProxySetView> {
    const record = await this.changeable(name);
    return this.write(record, { spec: { ...record.spec, paused: true }, event: 'rollout paused' });
  }

  /** Continues a rolling change; also the admin's go-ahead after ReplacementsExhausted (always a new generation). */
  async resume(name: string): Promise<ProxySetView> {
    const record = await this.changeable(name);
    return this.write(record, { spec: { ...record.spec, paused: false }, event: 'resumed', always: true });
  }

  /** Deletes the named members; the set makes new ones in their place. Not counted against the budget. */
  async replace(name: string, input: unknown): Promise<ProxySetView> {
    const { members } = parseOrThrow(proxySetReplaceSchema, input);
    const record = await this.changeable(name);
    const current = new Map((await this.members(name)).map((member) => [member.name, member]));
    const unknown = members.filter((member) => !current.has(member));
    if (unknown.length > 0)
      throw new ProxySetValidationError(
        unknown.map((member) => ({
          path: `members.${members.indexOf(member)}`,
          message: `${JSON.stringify(member)} is not a member of ${JSON.stringify(name)}`,
        })),
      );
    for (const member of members) {
      if (current.get(member)?.deletionRequestedAt) continue;
      await this.options.proxies.delete(member, name);
      await this.options.store.events.record(record.uid, {
        type: 'Normal',
        reason: 'MemberReplaced',
        message: `${member} deleted by the admin; the set makes a new member`,
        atMs: this.options.clock.now(),
      });
    }
    this.options.onChange(name);
    return this.get(name);
  }

  /** Accepted: every member's deletion is requested now; the set goes once they are gone. */
  async delete(name: string): Promise<ProxySetView> {
    const record = await this.record(name);
    const { store, clock } = this.options;
    await store.proxySets.requestDeletion({ uid: record.uid, now: isoTime(clock) });
    for (const member of await this.members(name)) {
      if (!member.deletionRequestedAt) await this.options.proxies.delete(member.name, name);
    }
    await store.events.record(record.uid, { type: 'Normal', reason: 'Deleting', message: 'set deleted: its members are being deleted', atMs: clock.now() });
    this.options.onChange(name);
    return this.get(name);
  }

  /** Sets proxy_operator_proxyset_replicas{set,state} from the store now (at scrape time, on any replica). */
  async recordMetrics(gauge: Metrics['proxySetReplicas']): Promise<void> {
    const sets = await this.list();
    gauge.reset();
    for (const { name, replicas, status } of sets) {
      const states = {
        desired: replicas,
        members: status.members,
        ready: status.ready,
        updated: status.updated,
        updating: status.updating,
        failing: status.failing,
      };
      for (const [state, value] of Object.entries(states)) gauge.set({ set: name, state }, value);
    }
  }

  async events(name: string, limit = 100): Promise<ProxyEventView[]> {
    return this.options.store.events.list((await this.record(name)).uid, limit);
  }

  private async updated(name: string, input: unknown): Promise<{ record: ProxySetRecord; spec: ProxySetSpec }> {
    const update = parseOrThrow(proxySetUpdateSchema, input);
    const record = await this.changeable(name);
    const current = record.spec.template;
    if (update.template.provider !== current.provider) {
      throw new ProxySetValidationError([{ path: 'template.provider', message: `cannot change (is ${JSON.stringify(current.provider)}); create another set` }]);
    }
    const { cloudInit, cloudInitBase64, ...template } = update.template;
    const source = cloudInit !== undefined || cloudInitBase64 !== undefined ? { cloudInit: cloudInit ?? '', cloudInitBase64 } : current;
    const spec: ProxySetSpec = {
      ...update,
      template: { ...template, cloudInit: source.cloudInit, ...(source.cloudInitBase64 !== undefined ? { cloudInitBase64: source.cloudInitBase64 } : {}) },
    };
    return { record, spec };
  }

  private async write(record: ProxySetRecord, change: { spec: ProxySetSpec; event: string; always?: boolean }): Promise<ProxySetView> {
    if (!change.always && JSON.stringify(change.spec) === JSON.stringify(record.spec)) return this.get(record.name);
    const { store, clock } = this.options;
    await store.transaction(async (tx) => {
      await tx.proxySets.updateSpec({ uid: record.uid, spec: change.spec, now: isoTime(clock) });
      await tx.events.record(record.uid, { type: 'Normal', reason: 'SpecUpdated', message: change.event, atMs: clock.now() });
    });
    this.options.onChange(record.name);
    return this.get(record.name);
  }

  private async members(name: string): Promise<ProxyRecord[]> {
    return membersBySet(await this.options.store.proxies.list()).get(name) ?? [];
  }

  private async record(name: string): Promise<ProxySetRecord> {
    const record = await this.options.store.proxySets.get(name);
    if (!record) throw new ProxySetNotFoundError(name);
    return record;
  }

  private async changeable(name: string): Promise<ProxySetRecord> {
    const record = await this.record(name);
    if (record.deletionRequestedAt) throw new ProxySetDeletingError(name);
    return record;
  }

  private requireProvider(provider: string): void {
    if (!this.options.providerNames().includes(provider)) {
      throw new ProxySetValidationError([{ path: 'template.provider', message: `${JSON.stringify(provider)} is not a configured provider` }]);
    }
  }
}
