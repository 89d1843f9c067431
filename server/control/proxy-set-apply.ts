// Carrying out a pass's decisions, in order, through the Proxy service with the set as owner, and
// writing what happened to the set's events and the members' own. The first action that fails
// stops the rest (the next pass decides again from what is there then).
import type { ProxySetReplacement } from '@/lib/api/proxysets';
import type { Store } from '@/server/store';
import { ProxyExistsError } from '@/server/store/errors';
import type { EventInput } from '@/server/store/events';
import type { ProxyRecord } from '@/server/store/proxies';
import type { ProxySetRecord } from '@/server/store/proxy-sets';
import type { Logger } from '@/server/telemetry/logger';
import { type Clock, isoTime } from './clock';
import { errorMessage } from '@/lib/error-message';
import type { ProxyService } from './proxy-service';
import type { CreateReason, DeleteReason, SetAction, SetDecision } from './proxy-set-decide';
import { memberLabels, memberName, memberSpec } from './proxy-set-members';

export interface AppliedActions {
  /** members replaced elsewhere while their host is down */
  displaced: string[];
  replacements: ProxySetReplacement[];
  /** the budget ran out in this pass */
  exhausted: boolean;
}

export interface ApplyOptions {
  set: ProxySetRecord;
  members: ProxyRecord[];
  decision: SetDecision;
  proxies: ProxyService;
  store: Store;
  clock: Clock;
  logger: Logger;
}

const createReasons: Record<CreateReason, (action: { displaces?: string }) => string> = {
  ScaleUp: () => "to reach the set's replicas",
  Replacement: () => 'as a replacement',
  Rollout: () => 'rolling to the current template',
  HostDown: (action) => `in place of ${action.displaces ?? 'a member'}, whose host has been down longer than hostDownGrace`,
};

const deleteReasons: Record<DeleteReason, string> = {
  ScaleDown: 'more members than replicas (not-Ready first, then newest)',
  Rollout: 'rolled: a member of the current template is Ready in its place',
  HostBack: 'its host is back and a replacement runs elsewhere',
};

/** Creates one member on `host`; a name already taken (by any Proxy) is drawn again. */
async function createMember(options: ApplyOptions, action: { host: string; why: string }): Promise<string> {
  const { set, proxies, store, clock } = options;
  for (let attempt = 0; ; attempt++) {
    const name = memberName(set.name);
    try {
      const created = await proxies.create({ name, ...memberSpec({ setName: set.name, template: set.spec.template, host: action.host }) }, set.name);
      const where = action.host ? `on ${action.host}` : 'on a host the provider chooses';
      await store.events.record(set.uid, { type: 'Normal', reason: 'MemberCreated', message: `${name} ${where}, ${action.why}`, atMs: clock.now() });
      await store.events.record(created.uid, {
        type: 'Normal',
        reason: 'CreatedBySet',
        message: `member of ProxySet ${set.name}, ${action.why}`,
        atMs: clock.now(),
      });
      return name;
    } catch (err) {
      if (!(err instanceof ProxyExistsError) || attempt >= 4) throw err;
    }
  }
}

/** Deletes a member through the set, with an event on the member saying why (when it is still on record). */
async function deleteMember(options: ApplyOptions, removal: { member: string; why: EventInput }): Promise<void> {
  const { set, members, proxies, store, clock } = options;
  await proxies.delete(removal.member, set.name);
  const member = members.find((candidate) => candidate.name === removal.member);
  if (member) await store.events.record(member.uid, { ...removal.why, atMs: clock.now() });
}

async function applyOne(options: ApplyOptions, action: SetAction, applied: AppliedActions): Promise<void> {
  const { set, proxies, store, clock, members } = options;
  switch (action.kind) {
    case 'create': {
      await createMember(options, { host: action.host, why: createReasons[action.reason](action) });
      if (action.displaces) applied.displaced.push(action.displaces);
      return;
    }
    case 'replace': {
      const why = action.cause === 'Failed' ? 'it Failed' : `it was not Ready within readyTimeout (${set.spec.readyTimeout})`;
      const diagnosis = action.firstFailure ? `; diagnosis: first failure at ${action.firstFailure}` : '';
      await deleteMember(options, {
        member: action.member,
        why: { type: 'Warning', reason: 'ReplacedBySet', message: `replaced by ProxySet ${set.name}: ${why}${diagnosis}` },
      });
      applied.replacements.push({ member: action.member, at: isoTime(clock), cause: action.cause, firstFailure: action.firstFailure });
      const name = await createMember(options, { host: action.host, why: `replacing ${action.member}` });
      await store.events.record(set.uid, {
        type: 'Warning',
        reason: 'MemberReplaced',
        message: `${action.member} replaced by ${name}: ${why}${diagnosis}`,
        atMs: clock.now(),
      });
      return;
    }
    case 'delete': {
      await deleteMember(options, {
        member: action.member,
        why: {
          type: 'Normal',
          reason: 'DeletedBySet',
          message: `deleted by ProxySet ${set.name}: ${deleteReasons[action.reason]}`,
        },
      });
      await store.events.record(set.uid, {
        type: 'Normal',
        reason: 'MemberDeleted',
        message: `${action.member}: ${deleteReasons[action.reason]}`,
        atMs: clock.now(),
      });
      return;
    }
    case 'relabel': {
      const member = members.find((candidate) => candidate.name === action.member);
      if (!member || member.spec.mode !== 'Managed') return;
      const { spec } = member;
      await proxies.update(
        member.name,
        { mode: 'Managed', provider: spec.provider, placement: spec.placement, port: spec.port, labels: memberLabels(set.name, set.spec.template) },
        set.name,
      );
      return;
    }
    case 'exhausted':
      applied.exhausted = true;
      return;
    case 'event':
      await store.events.record(set.uid, { type: action.type, reason: action.reason, message: action.message, atMs: clock.now() });
      return;
  }
}

export async function applySetActions(options: ApplyOptions): Promise<AppliedActions> {
  const applied: AppliedActions = { displaced: [], replacements: [], exhausted: false };
  for (const action of options.decision.actions) {
    try {
      await applyOne(options, action, applied);
    } catch (err) {
      const message = `${action.kind}${'member' in action ? ` ${action.member}` : ''}${'host' in action ? ` on ${action.host}` : ''} failed: ${errorMessage(err)}`;
      options.logger.warn({ set: options.set.name, error: errorMessage(err), action: action.kind }, 'proxy-set action failed');
      await options.store.events.record(options.set.uid, { type: 'Warning', reason: 'ActionFailed', message, atMs: options.clock.now() });
      break;
    }
  }
  return applied;
}
