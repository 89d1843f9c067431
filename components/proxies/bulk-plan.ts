// What the bulk actions can do with a selection: plain Proxies can be deleted; members of a set are
// deleted only by their set, so for them the action is Replace, sent per set to .../replace (the old
// member is deleted, the set makes a new one in its place). The API has no replace for a plain Proxy.
import type { ProxyView } from '@/lib/proxy-spec';
import { proxySetLabel } from '@/lib/api/proxyset-label';

export interface BulkPlan {
  /** plain Proxies: Delete applies to these */
  deletable: string[];
  /** set members by set: Replace applies to these */
  replaceable: Map<string, string[]>;
  members: number;
}

export function planBulk(selected: ProxyView[]): BulkPlan {
  const deletable: string[] = [];
  const replaceable = new Map<string, string[]>();
  for (const proxy of selected) {
    const set = proxy.labels[proxySetLabel];
    if (set === undefined) deletable.push(proxy.name);
    else replaceable.set(set, [...(replaceable.get(set) ?? []), proxy.name]);
  }
  return { deletable, replaceable, members: selected.length - deletable.length };
}

/** The outcome of several requests in words: how many went through, and each refusal. */
export function summarise(results: Array<{ name: string; error?: string }>, verb: string): string {
  const failed = results.filter((result) => result.error !== undefined);
  const done = results.length - failed.length;
  const head = `${done} of ${results.length} ${verb}.`;
  return failed.length === 0 ? head : `${head} Refused: ${failed.map((result) => `${result.name}: ${result.error}`).join('; ')}`;
}
