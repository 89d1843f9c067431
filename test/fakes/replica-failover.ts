// The failover scenarios, run by the unit tests (fake provider, a throwaway PostgreSQL) and by
// the lab tests (kvm2 over the lab's hypervisors, the lab's PostgreSQL): two replica processes on
// one database; exactly one leads; a Proxy created through the other is provisioned by the leader;
// SIGKILL of the leader and SIGSTOP of the leader (a silent partition) hand over within 15 s, the
// Proxies keep converging, no instance is made twice, nothing acknowledged is lost, and a stopped
// leader that is continued steps down before it makes any provider call.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterView } from '@/lib/api/cluster';
import type { ProxyCreateInput, ProxyView } from '@/lib/proxy-spec';
import { instanceName } from '@/server/control/names';
import type { ProviderEntry } from '@/server/providers/config';
import { bundleChild, type Child, startChild } from './bundle-child';

export interface FailoverTarget {
  /** the database both replicas share (fresh and empty) */
  databaseUrl(): Promise<string>;
  entry: ProviderEntry;
  /** env the replicas need besides the database (FAKE_STATE for the fake) */
  env?: Record<string, string>;
  proxy(name: string): ProxyCreateInput;
  /** how many instances named `instance` exist across the provider's hosts */
  instancesNamed(instance: string): Promise<number>;
  /** whether the Proxy reached what this provider can reach (the lab's VMs get no address) */
  converged(view: ProxyView): Promise<boolean>;
  /** ms a Proxy may take to converge (Create included) */
  convergeMs: number;
  /** put before every Proxy name (a shared lab keeps runs apart) */
  namePrefix?: string;
  /** removes what the Proxies named left behind (instances, volumes) */
  cleanUp?(names: string[]): Promise<void>;
}

/** One takeover, measured from the signal to the new leader's `leads` line. */
export interface Takeover {
  signal: 'SIGKILL' | 'SIGSTOP';
  ms: number;
}

export const takeovers: Takeover[] = [];
const heartbeat = '1s';
const lease = '8s';

interface Replica extends Child {
  id: string;
  ask<T>(op: 'create' | 'get' | 'cluster', args?: { body?: unknown; name?: string }): Promise<T>;
}

let commands = 0;

function replicaOf(child: Child, id: string): Replica {
  return {
    ...child,
    id,
    async ask<T>(op: 'create' | 'get' | 'cluster', args: { body?: unknown; name?: string } = {}): Promise<T> {
      const commandId = ++commands;
      const from = child.lines.length;
      child.send({ id: commandId, op, ...args });
      const line = await child.waitForLine((entry) => entry.tag === 'reply' && (entry.value as { id: number }).id === commandId, {
        from,
        timeoutMs: 10_000,
        what: `the reply to ${op}`,
      });
      const reply = line.value as { value?: T; error?: string };
      if (reply.error !== undefined) throw new Error(`${id}: ${op} failed: ${reply.error}`);
      return reply.value as T;
    },
  };
}

const at = (line: { value: unknown }) => (line.value as { at: number }).at;

export function replicaFailoverSuite(title: string, target: () => FailoverTarget): void {
  describe(title, () => {
    const dir = mkdtempSync(join(tmpdir(), 'replicas-'));
    const running: Replica[] = [];
    let script: string;
    let databaseUrl: string;
    let t: FailoverTarget;

    const start = (id: string): Replica => {
      const replica = replicaOf(
        startChild(script, {
          DATABASE_URL: databaseUrl,
          DATA_DIR: dir,
          REPLICA_ID: id,
          PROVIDER_ENTRY: JSON.stringify(t.entry),
          LEADER_HEARTBEAT: heartbeat,
          LEADER_LEASE: lease,
          ...t.env,
        }),
        id,
      );
      running.push(replica);
      return replica;
    };

    const runningOn = async (replica: Replica, name: string) => {
      const deadline = Date.now() + t.convergeMs;
      for (;;) {
        const view = await replica.ask<ProxyView>('get', { name });
        if (await t.converged(view)) return view;
        if (Date.now() > deadline) throw new Error(`${name} has not converged (${view.status.phase}) after ${t.convergeMs} ms: ${JSON.stringify(view.status)}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    };

    beforeAll(async () => {
      t = target();
      script = await bundleChild('test/fakes/replica-child.ts', dir);
      databaseUrl = await t.databaseUrl();
    }, 120_000);

    afterAll(async () => {
      for (const replica of running) {
        replica.process.kill('SIGCONT');
        replica.process.kill('SIGTERM');
        await Promise.race([replica.exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
        replica.process.kill('SIGKILL');
      }
      await t.cleanUp?.(created);
      rmSync(dir, { recursive: true, force: true });
    }, 60_000);

    let a: Replica;
    let b: Replica;
    const created: string[] = [];
    const named = (what: string) => `${t.namePrefix ?? ''}${what}`;

    it('elects exactly one leader; a Proxy created through the other replica is provisioned by the leader', { timeout: 180_000 }, async () => {
      a = start('replica-a');
      await a.waitFor('leads', 20_000);
      b = start('replica-b');
      await b.waitFor('started', 20_000);
      const view = await b.ask<ClusterView>('cluster');
      expect(view.leader).toBe('replica-a');
      expect(view.replicas.map((replica) => [replica.id, replica.alive, replica.leader])).toEqual([
        ['replica-a', true, true],
        ['replica-b', true, false],
      ]);
      await b.ask('create', { body: t.proxy(named('fo-one')) });
      created.push(named('fo-one'));
      await runningOn(b, named('fo-one'));
      expect(a.lines.filter((line) => line.tag === 'call' && (line.value as { method: string }).method === 'create')).toHaveLength(1);
      expect(b.lines.filter((line) => line.tag === 'call')).toEqual([]);
      expect(b.lines.filter((line) => line.tag === 'leads')).toEqual([]);
    });

    it('SIGKILL of the leader: the other takes over within 15 s, the Proxy being created converges once, nothing is lost', { timeout: 180_000 }, async () => {
      await b.ask('create', { body: t.proxy(named('fo-two')) });
      created.push(named('fo-two'));
      // Kill the leader while it works on fo-two (its Create is under way or about to be).
      await a
        .waitForLine((line) => line.tag === 'call' && (line.value as { method: string }).method === 'create', {
          from: 0,
          timeoutMs: 20_000,
          what: 'a second create',
        })
        .catch(() => undefined);
      const killedAt = Date.now();
      a.process.kill('SIGKILL');
      const leads = await b.waitForLine((line) => line.tag === 'leads', { timeoutMs: 20_000, what: 'b leading' });
      const ms = at(leads) - killedAt;
      takeovers.push({ signal: 'SIGKILL', ms });
      expect(ms).toBeLessThan(15_000);
      for (const name of created) await runningOn(b, name);
      for (const name of created) expect(await t.instancesNamed(instanceName(name)), `instances of ${name}`).toBe(1);
      const view = await b.ask<ClusterView>('cluster');
      expect(view.leader).toBe('replica-b');
    });

    it('SIGSTOP of the leader: the other takes over, and the stopped one, continued, steps down before any provider call', { timeout: 180_000 }, async () => {
      a = start('replica-a2');
      await a.waitFor('started', 20_000);
      await b.ask('create', { body: t.proxy(named('fo-three')) });
      created.push(named('fo-three'));
      await runningOn(b, named('fo-three'));
      const stoppedAt = Date.now();
      b.process.kill('SIGSTOP');
      const leads = await a.waitForLine((line) => line.tag === 'leads', { timeoutMs: 30_000, what: 'a2 leading' });
      const ms = at(leads) - stoppedAt;
      takeovers.push({ signal: 'SIGSTOP', ms });
      expect(ms).toBeLessThan(15_000);
      await a.ask('create', { body: t.proxy(named('fo-four')) });
      created.push(named('fo-four'));
      await runningOn(a, named('fo-four'));

      const from = b.lines.length;
      const continuedAt = Date.now();
      b.process.kill('SIGCONT');
      const steppedDown = await b.waitForLine((line) => line.tag === 'stepped-down', { from, timeoutMs: 20_000, what: 'b stepping down' });
      expect(at(steppedDown)).toBeGreaterThanOrEqual(continuedAt - 1_000);
      // Give its woken timers time to run: whatever they try is fenced.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const callsAfter = b.lines.slice(from).filter((line) => line.tag === 'call' && at(line) >= continuedAt);
      expect(callsAfter).toEqual([]);
      for (const name of created) expect(await t.instancesNamed(instanceName(name)), `instances of ${name}`).toBe(1);
      const view = await a.ask<ClusterView>('cluster');
      expect(view.leader).toBe('replica-a2');
      expect(view.replicas.filter((replica) => replica.leader).map((replica) => replica.id)).toEqual(['replica-a2']);
    });
  });
}
