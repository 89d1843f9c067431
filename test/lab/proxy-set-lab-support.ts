// Shared by the control-proxy-set-*.test.ts lab tests: a ProxySet of the run's entry in the lab's
// terms, its members as the API lists them, and what root's virsh sees of them on each host, so a
// test compares the set's status with the real domains.
import { afterAll, beforeAll, expect, vi } from 'vitest';
import type { ProxySetCreateInput } from '@/lib/api/proxyset-spec';
import type { ProxyEventView, ProxyView } from '@/lib/proxy-spec';
import { instanceName } from '@/server/control/names';
import type { Runtime } from '@/server/runtime';
import { ControlLabRun } from './control-support';
import { type Lab, loadLab, virsh } from './harness/lab';

export interface ProxySetSuite {
  lab: Lab;
  run: ControlLabRun;
  runtime: Runtime;
  /** the one provider entry's name */
  entry: string;
  /** the set name the file uses (its members are in the run's scope and cleaned up) */
  set: string;
}

/**
 * A test file's run with one entry and one set name, started before its tests once every lab host
 * is Reachable for the entry (a set places nothing before that), cleaned up after.
 */
export function proxySetSuite(options: { suffix: string; env?: Record<string, string> }): ProxySetSuite {
  const suite = {} as ProxySetSuite;
  beforeAll(async () => {
    suite.lab = loadLab();
    suite.run = new ControlLabRun(suite.lab);
    suite.entry = suite.run.entryName(options.suffix);
    suite.set = suite.run.setName(options.suffix);
    suite.runtime = await suite.run.start({ entries: [{ suffix: options.suffix }], env: options.env });
    await allReachable(suite.runtime, suite.lab, suite.entry);
  });
  afterAll(async () => {
    await suite.run?.cleanUp();
  });
  return suite;
}

/** A set of `replicas` lab members (image `lab`, machine type `small`: a domain that boots no OS, never Ready). */
export function labSet(
  options: { name: string; provider: string; replicas: number } & Omit<ProxySetCreateInput, 'name' | 'template' | 'replicas'>,
): ProxySetCreateInput {
  const { name, provider, ...settings } = options;
  return {
    name,
    template: { provider, placement: { machineType: 'small', image: 'lab' }, cloudInit: '#cloud-config\nhostname: proxy-set-lab\n' },
    ...settings,
  };
}

/** The set's members as the Proxies list shows them (label proxyset=<set>), those being deleted left out. */
export async function setMembers(runtime: Runtime, set: string): Promise<ProxyView[]> {
  return (await runtime.services.proxies.list()).filter((proxy) => proxy.labels.proxyset === set && !proxy.deletionRequestedAt);
}

/** Domain names of HOST as root's virsh lists them: running only, or all defined. */
async function domainNames(host: string, options: { all: boolean }): Promise<Set<string>> {
  const listing = await virsh(['list', '--name', options.all ? '--all' : '--state-running'], host);
  return new Set(
    listing
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== ''),
  );
}

/** Per lab host, the members (of `names`) whose domain runs there, sorted. */
export async function runningByHost(lab: Lab, names: readonly string[]): Promise<Record<string, string[]>> {
  const byHost: Record<string, string[]> = {};
  for (const { name: host } of lab.hosts) {
    const running = await domainNames(host, { all: false });
    byHost[host] = names.filter((member) => running.has(instanceName(member))).sort();
  }
  return byHost;
}

/** Per lab host, how many of DOMAINS are defined there (running or not). */
export async function definedByHost(lab: Lab, domains: ReadonlySet<string>): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const { name: host } of lab.hosts) counts[host] = [...(await domainNames(host, { all: true }))].filter((domain) => domains.has(domain)).length;
  return counts;
}

/** The set's hosts bar as counts: host → members (hosts with none left out). */
export async function statusByHost(runtime: Runtime, set: string): Promise<Record<string, number>> {
  const { status } = await runtime.services.proxySets.get(set);
  return Object.fromEntries(status.hosts.filter((entry) => entry.members > 0).map((entry) => [entry.host, entry.members]));
}

/** The set's events of REASON, oldest first. */
export async function setEvents(runtime: Runtime, set: string, reason: string): Promise<ProxyEventView[]> {
  return (await runtime.services.proxySets.events(set, 1000)).filter((event) => event.reason === reason).sort((a, b) => a.id - b.id);
}

/** The health check's reason for HOST of the entry. */
export async function hostReason(runtime: Runtime, entry: string, host: string): Promise<string | undefined> {
  return (await runtime.services.providers.list()).find((summary) => summary.name === entry)?.targets.find((target) => target.name === host)?.reason;
}

/** Waits for every lab host to be Reachable for the entry (a set places nothing before the first health check). */
export async function allReachable(runtime: Runtime, lab: Lab, entry: string): Promise<void> {
  const want = lab.hosts.map(() => 'Reachable');
  await vi.waitFor(
    async () => expect(await Promise.all(lab.hosts.map((host) => hostReason(runtime, entry, host.name))), 'every host Reachable').toEqual(want),
    { timeout: 60_000, interval: 250 },
  );
}

/**
 * Waits until the set has exactly `count` members, each with a running domain on the host its
 * placement names; returns them by host (per host, sorted member names).
 */
export async function settled(options: { runtime: Runtime; lab: Lab; set: string; count: number; timeoutMs?: number }): Promise<Record<string, string[]>> {
  const { runtime, lab, set, count } = options;
  return vi.waitFor(
    async () => {
      const members = await setMembers(runtime, set);
      expect(members.length, `${set} to have ${count} members`).toBe(count);
      const running = await runningByHost(
        lab,
        members.map((member) => member.name),
      );
      const placed: Record<string, string[]> = Object.fromEntries(lab.hosts.map((host) => [host.name, []]));
      for (const member of members) placed[member.placement?.zone ?? '']?.push(member.name);
      for (const names of Object.values(placed)) names.sort();
      expect(running, `every member of ${set} running on its host`).toEqual(placed);
      return running;
    },
    { timeout: options.timeoutMs ?? 180_000, interval: 1_000 },
  );
}

/** host → count, hosts without members left out. */
export const counts = (byHost: Record<string, readonly unknown[]>): Record<string, number> =>
  Object.fromEntries(
    Object.entries(byHost)
      .filter(([, names]) => names.length > 0)
      .map(([host, names]) => [host, names.length]),
  );
