// The control plane on the lab, end to end through the runtime: two Proxies (one per lab host)
// get running domains and stay Provisioning (the lab image boots no OS, so no address ever comes;
// on lab1's libvirt 9.0 Get is even ErrTransient, which must back off, never fail the Proxy); ListByTag
// lists each domain once, under the host it runs on; orphan GC collects the domain of a Proxy whose
// record is gone and spares the one whose Proxy exists, and never touches the other host's domains;
// deleting a Proxy removes its domain, overlay and seed, and then the record.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ProxyView } from '@/lib/proxy-spec';
import { instanceName } from '@/server/control/names';
import { managedTag } from '@/server/providers/contract';
import type { Runtime } from '@/server/runtime';
import { loadLab, type Lab } from './harness/lab';
import { ControlLabRun, domainState, labProxy, recordedInstance } from './control-support';

let lab: Lab;
let run: ControlLabRun;
let runtime: Runtime;
let entry: string;
let kept: string;
let orphaned: string;

beforeAll(async () => {
  lab = loadLab();
  run = new ControlLabRun(lab);
  entry = run.entryName('life');
  kept = run.proxyName('kept');
  orphaned = run.proxyName('orphan');
  // GC every 2 s, so a sweep certainly runs while both Proxies exist and soon after one is gone.
  runtime = await run.start({ entries: [{ suffix: 'life' }], env: { GC_INTERVAL: '2s' } });
});
afterAll(async () => {
  await run?.cleanUp();
});

const view = (name: string): Promise<ProxyView> => runtime.services.proxies.get(name);

/** Waits until the Proxy has a providerID and its domain runs; returns the providerID. */
async function provisioned(name: string): Promise<string> {
  const providerID = await recordedInstance(runtime, name);
  const host = (await view(name)).placement?.zone;
  await vi.waitFor(async () => expect(await domainState(instanceName(name), host), `${instanceName(name)} to run on ${host}`).toBe('running'), {
    timeout: 60_000,
    interval: 250,
  });
  return providerID;
}

/** Waits for `passes` more Get calls on the instance, checking the phase at every poll. */
async function staysProvisioning(name: string, providerID: string, passes: number): Promise<string[]> {
  const scoped = run.scoped.get(entry);
  const target = (scoped?.gets.get(providerID) ?? 0) + passes;
  const seen: string[] = [];
  await vi.waitFor(
    async () => {
      seen.push((await view(name)).status.phase);
      expect(scoped?.gets.get(providerID) ?? 0, `${passes} more reconcile passes of ${name}`).toBeGreaterThanOrEqual(target);
    },
    { timeout: 30_000, interval: 100 },
  );
  return [...new Set(seen)];
}

describe('the runtime on the lab', () => {
  it('two Proxies reach Provisioning with running domains and stay there, retrying, over several passes', async () => {
    await runtime.services.proxies.create(labProxy({ name: kept, provider: entry, zone: 'lab1' }));
    const keptID = await provisioned(kept);
    // The second one on lab2, a hypervisor of its own: it downloads the base into its own pool.
    await runtime.services.proxies.create(labProxy({ name: orphaned, provider: entry, zone: 'lab2' }));
    const orphanedID = await provisioned(orphaned);
    expect(keptID).toBe(`hosts/lab1/domains/${instanceName(kept)}`);
    expect(orphanedID).toBe(`hosts/lab2/domains/${instanceName(orphaned)}`);

    for (const [name, providerID] of [
      [kept, keptID],
      [orphaned, orphanedID],
    ] as const) {
      expect(await staysProvisioning(name, providerID, 3)).toEqual(['Provisioning']);
      const { status } = await view(name);
      expect(status.ip).toBeUndefined();
      const provisionedCondition = status.conditions.find((condition) => condition.type === 'Provisioned');
      expect(provisionedCondition?.status).toBe('False');
      // No address yet: Provisioning without IP where ARP answers, ErrTransient (every address
      // source failed) where libvirt's ARP source errors on an empty neighbour table.
      if (provisionedCondition?.reason === 'ReconcileError') {
        expect(status.lastError).toMatchObject({ class: 'transient' });
        expect(status.lastError?.message).toContain('every address source failed');
      } else {
        expect(provisionedCondition?.reason).toBe('InstanceProvisioning');
      }
      expect((await runtime.services.proxies.events(name)).some((event) => event.reason === 'Failed')).toBe(false);
      expect(await domainState(instanceName(name), (await view(name)).placement?.zone)).toBe('running');
    }
    expect(run.probes).toEqual([]);
  });

  it('orphan GC deletes the domain whose Proxy record is gone and never the one whose Proxy exists', async () => {
    const provider = runtime.services.providers.get(entry);
    const listed = (await provider!.listByTag(managedTag)).map((instance) => instance.providerID).sort();
    // Two hypervisors: each domain is listed once, under the host it runs on.
    expect(listed).toEqual([`hosts/lab1/domains/${instanceName(kept)}`, `hosts/lab2/domains/${instanceName(orphaned)}`]);

    const orphanDomain = instanceName(orphaned);
    await runtime.store.proxies.remove((await view(orphaned)).uid);
    await vi.waitFor(async () => expect(await domainState(orphanDomain, 'lab2'), `GC to delete ${orphanDomain}`).toBeUndefined(), {
      timeout: 30_000,
      interval: 250,
    });
    expect(await run.instanceVolumes(orphanDomain, 'lab2')).toEqual([]);
    expect(run.logs.filter((line) => line.msg === 'orphan instance deleted').map((line) => line.providerID)).toEqual([`hosts/lab2/domains/${orphanDomain}`]);

    // A sweep now sees the kept domain once (on lab1) and deletes nothing; lab1 never lost anything.
    const [report] = await runtime.loops.gc.sweep();
    expect(report).toMatchObject({ provider: entry, listed: 1, deleted: [], failed: [] });
    expect(await domainState(instanceName(kept))).toBe('running');
    expect(await run.instanceVolumes(instanceName(kept))).toEqual([`${instanceName(kept)}-seed.iso`, `${instanceName(kept)}.qcow2`]);
    expect((await view(kept)).status.phase).toBe('Provisioning');
  });

  it('deleting a Proxy removes its domain, overlay and seed, then its record', async () => {
    const domain = instanceName(kept);
    expect((await runtime.services.proxies.delete(kept)).deletionRequestedAt).toBeDefined();
    const phases: string[] = [];
    await vi.waitFor(
      async () => {
        const record = await runtime.store.proxies.get(kept);
        if (record) phases.push((await view(kept)).status.phase);
        expect(record, `${kept} to be removed`).toBeUndefined();
      },
      { timeout: 60_000, interval: 50 },
    );
    expect(phases.filter((phase) => phase !== 'Provisioning' && phase !== 'Deleting')).toEqual([]);
    expect(await domainState(domain)).toBeUndefined();
    expect(await run.instanceVolumes(domain)).toEqual([]);
    expect((await runtime.services.proxies.list()).map((proxy) => proxy.name)).not.toContain(kept);
    // The cached base stays for the next Proxy.
    expect(await run.baseVolumes()).toEqual([`base-${entry}-lab.qcow2`, `base-${entry}-lab.qcow2.sha256`]);
  });
});
