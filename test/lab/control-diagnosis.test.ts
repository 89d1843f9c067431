// The diagnosis on the lab's real hypervisors: a managed domain that boots no OS (the lab's default
// image), one on each host (lab1: libvirt 9.0, lab2: libvirt 11.3), gets a checklist whose early
// steps pass (host, domain, seed) and which fails first at "boot reached cloud-init": the boot
// capture holds only the firmware's output (OVMF ends in its UEFI shell). The guest agent and the
// address fail too; what needs an address is skipped. It changes nothing: the domain, its XML, the
// pool's volumes and the Proxy's spec and instance are the same afterwards. The duration of each
// run is printed (figures, not assertions).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Diagnosis } from '@/lib/api/diagnosis';
import { instanceName } from '@/server/control/names';
import type { Runtime } from '@/server/runtime';
import { noOsWithFirmwareOutput } from '@/test/support/diagnosis-expectations';
import { loadLab, virsh } from './harness/lab';
import { ControlLabRun, domainState, labProxy, recordedInstance } from './control-support';

let run: ControlLabRun;
let runtime: Runtime;
let entry: string;
const proxies: Record<string, string> = {};

beforeAll(async () => {
  run = new ControlLabRun(loadLab());
  entry = run.entryName('diag');
  for (const host of ['lab1', 'lab2']) proxies[host] = run.proxyName(`diag-${host}`);
  runtime = await run.start({ entries: [{ suffix: 'diag' }] });
});
afterAll(async () => {
  await run?.cleanUp();
});

async function runningDomain(name: string, host: string): Promise<void> {
  await recordedInstance(runtime, name);
  await vi.waitFor(async () => expect(await domainState(instanceName(name), host)).toBe('running'), { timeout: 60_000, interval: 250 });
  // Where the instance runs comes with it, from the provider; nothing reads it out of the providerID.
  expect((await runtime.services.proxies.get(name)).status.host).toBe(host);
}

/**
 * What a diagnosis must leave as it was: the domain, its XML, the pool and the Proxy's record (its
 * spec and what the instance is; the reconciler keeps retrying meanwhile and restamps its last error).
 */
async function observable(name: string, host: string) {
  const domain = instanceName(name);
  const record = await runtime.store.proxies.get(name);
  return {
    state: await domainState(domain, host),
    xml: await virsh(['dumpxml', domain], host),
    volumes: await run.instanceVolumes(domain, host),
    generation: record?.generation,
    spec: record?.spec,
    instance: { phase: record?.status.phase, providerID: record?.status.providerID, ip: record?.status.ip },
  };
}

describe.each(['lab1', 'lab2'])('the diagnosis of a managed domain that boots no OS, on %s', (host) => {
  let diagnosis: Diagnosis;

  it('passes host, domain and seed, and fails first at "boot reached cloud-init", then at the guest agent', async () => {
    const name = proxies[host] as string;
    await runtime.services.proxies.create(labProxy({ name, provider: entry, zone: host }));
    await runningDomain(name, host);
    await vi.waitFor(
      () => expect(runtime.services.consoles.consoleLog(name) ?? '', 'the boot capture to hold the UEFI shell').toContain('UEFI Interactive Shell'),
      {
        timeout: 110_000,
        interval: 500,
      },
    );
    const before = await observable(name, host);

    diagnosis = await runtime.services.diagnosis.diagnose(name);
    const status = Object.fromEntries(diagnosis.steps.map((step) => [step.id, step.status]));
    expect(status).toEqual(noOsWithFirmwareOutput);
    expect(diagnosis.firstFailure).toBe('cloud-init');
    const step = (id: string) => diagnosis.steps.find((candidate) => candidate.id === id);
    expect(step('host')?.evidence).toMatch(new RegExp(`^${entry}/${host}: health check: Reachable, checked at .*; connected for this diagnosis in \\d+ ms$`));
    expect(step('domain')?.evidence).toBe(`domain ${instanceName(name)} on host ${host} is running`);
    expect(step('seed')?.evidence).toBe(`${instanceName(name)}-seed.iso attached as sda (cdrom)`);
    expect(step('cloud-init')?.evidence).toMatch(/^\d+ console lines, none from cloud-init; the last: ".*"$/);
    expect(step('cloud-init')?.next).toContain(`virsh console --force ${instanceName(name)}`);
    expect(step('agent')?.evidence).toMatch(/^the host says: .*guest agent is not connected/i);
    expect(step('agent')?.next).toContain('qemu-guest-agent');
    expect(step('address')?.evidence).toMatch(/^no usable IPv4 address \(agent: .*; ARP: .*\)$/);

    expect(await observable(name, host)).toEqual(before);
    console.log(`diagnosis on ${host}: ${diagnosis.durationMs} ms (${diagnosis.steps.map((entry) => `${entry.id} ${entry.durationMs}`).join(', ')})`);
  });

  it('a second run answers the same', async () => {
    const again = await runtime.services.diagnosis.diagnose(proxies[host] as string);
    expect(again.steps.map((step) => step.status)).toEqual(diagnosis.steps.map((step) => step.status));
    console.log(`diagnosis on ${host}, second run: ${again.durationMs} ms`);
  });
});
