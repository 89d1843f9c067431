// The kvm2 provider across the lab's two hypervisors (lab1: libvirt 9.0, lab2: libvirt 11.3, each
// with its own pool): the first Creates on both at the same moment download the image once per
// host, and the two downloads overlap in time (one host's lock never holds up the other's); each
// domain is listed once, on its own host, and deleting one host's domain leaves the other's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { managedTag } from '@/server/providers/contract';
import type { Kvm2Provider } from '@/server/providers/kvm2/provider';
import { imageServerStats, loadLab, resetImageServerStats, virsh, type Lab } from './harness/lab';
import { Kvm2LabRun, type LogLine } from './kvm2-provider-support';

let lab: Lab;
let run: Kvm2LabRun;
let provider: Kvm2Provider;
const names = new Map<string, string>();

// The lab image, dripped: 16 KiB every 250 ms (about 3 s for the whole file), long enough for
// two downloads to be seen overlapping, or not.
const slowPath = '/variants/slow.qcow2';

beforeAll(() => {
  lab = loadLab();
  run = new Kvm2LabRun(lab);
  provider = run.provider({
    images: { slow: { url: `${lab.imageServer.url}${slowPath}?chunk=16384&intervalMs=250`, sha256: lab.imageServer.image.sha256 } },
  });
  for (const host of lab.hosts) names.set(host.name, run.domainName(host.name));
});
afterAll(async () => {
  await run.cleanUp();
});

const request = (host: string) => ({
  name: names.get(host)!,
  uid: `uid-${names.get(host)}`,
  placement: { zone: host, machineType: 'small', image: 'slow' },
  cloudInit: '#cloud-config\n',
  port: 3128,
});

/** The time of the log line MSG about HOST. */
function loggedAt(msg: string, host: string): number {
  const line = run.logs.find((entry: LogLine) => entry.msg === msg && entry.host === host);
  if (!line) throw new Error(`no "${msg}" line for ${host}`);
  return Number(line.time);
}

describe('the kvm2 provider on two hypervisors', () => {
  it('first Creates on lab1 and lab2 at the same moment download the image once per host, in parallel', async () => {
    await resetImageServerStats(lab);
    const instances = await Promise.all(lab.hosts.map((host) => provider.create(request(host.name))));
    expect(instances.map((instance) => instance.providerID)).toEqual(lab.hosts.map((host) => `hosts/${host.name}/domains/${names.get(host.name)}`));

    const stats = await imageServerStats(lab, true);
    expect(stats[`GET ${slowPath}`]).toBe(2);
    for (const host of lab.hosts) {
      expect((await virsh(['domstate', names.get(host.name)!], host)).trim()).toBe('running');
      expect(await run.baseVolumes(host.name)).toHaveLength(2); // base and marker, in each host's own pool
    }
    // Each download started before the other one finished.
    const [first, second] = lab.hosts.map((host) => host.name) as [string, string];
    expect(loggedAt('fetching base image into host pool', second)).toBeLessThan(loggedAt('base image cached', first));
    expect(loggedAt('fetching base image into host pool', first)).toBeLessThan(loggedAt('base image cached', second));
  });

  it('ListByTag lists each domain once, under its own host', async () => {
    const listed = (await provider.listByTag(managedTag))
      .map((instance) => instance.providerID)
      .filter((id) => [...names.values()].some((name) => id.endsWith(`/${name}`)));
    expect(listed.sort()).toEqual(lab.hosts.map((host) => `hosts/${host.name}/domains/${names.get(host.name)}`).sort());
  });

  it("deleting lab1's domain leaves lab2's running", async () => {
    const [lab1, lab2] = lab.hosts as [Lab['hosts'][number], Lab['hosts'][number]];
    await provider.delete(`hosts/${lab1.name}/domains/${names.get(lab1.name)}`);
    expect((await virsh(['list', '--all', '--name'], lab1)).split('\n').map((line) => line.trim())).not.toContain(names.get(lab1.name));
    expect((await virsh(['domstate', names.get(lab2.name)!], lab2)).trim()).toBe('running');
  });
});
