// The diagnosis of a Proxy on a real Debian guest (lab1), through the HTTP API, with the lab image
// server's /ip as the IP-echo URL: once Ready, every step passes, "boot reached cloud-init" from
// cloud-init's lines in the boot capture of the serial console; with Squid stopped in the guest
// (through the guest agent), the checklist fails at "proxy port open" and skips the probe. The
// duration of each run is printed (figures, not assertions).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Diagnosis, diagnosisSchema } from '@/lib/api/diagnosis';
import type { ProxyView } from '@/lib/proxy-spec';
import { guestShell } from './harness/guest-agent';
import { guestProviders } from './harness/guest-lab';
import { GuestProxy, guestSessionForFile } from './harness/guest-proxy';
import { squidCloudInit } from './harness/proxy-guest';

const bootTimeoutMs = 15 * 60_000;
const session = guestSessionForFile({ env: (lab) => ({ IP_ECHO_URL: `${lab.guest.imageServerVmUrl}/ip` }) });

const statusOf = (diagnosis: Diagnosis) => Object.fromEntries(diagnosis.steps.map((step) => [step.id, step.status]));
const stepOf = (diagnosis: Diagnosis, id: string) => diagnosis.steps.find((step) => step.id === id);

describe('the diagnosis of a Proxy on a real guest on lab1', () => {
  let proxy: GuestProxy;
  let ready: ProxyView;

  async function diagnose(label: string): Promise<Diagnosis> {
    const answer = await session().api.call({ method: 'GET', path: `/api/proxies/${proxy.options.name}/diagnosis` });
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    const diagnosis = diagnosisSchema.parse(answer.json);
    console.log(`real-guest diagnosis (${label}): ${diagnosis.durationMs} ms (${diagnosis.steps.map((step) => `${step.id} ${step.durationMs}`).join(', ')})`);
    return diagnosis;
  }

  beforeAll(() => {
    proxy = new GuestProxy(session(), {
      name: 'guest-diagnosis',
      host: 'lab1',
      provider: guestProviders.withAgent,
      firmware: 'uefi',
      cloudInit: squidCloudInit(),
      variant: 'diagnosis-lab1',
    });
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it('passes every step once the Proxy is Ready', async () => {
    await proxy.create();
    ready = await proxy.waitForReady(bootTimeoutMs);
    await proxy.waitForAgent(5 * 60_000);
    const diagnosis = await diagnose('Ready');
    expect(statusOf(diagnosis)).toEqual({
      host: 'pass',
      domain: 'pass',
      seed: 'pass',
      'cloud-init': 'pass',
      agent: 'pass',
      address: 'pass',
      port: 'pass',
      probe: 'pass',
      egress: 'pass',
    });
    expect(stepOf(diagnosis, 'cloud-init')?.evidence).toMatch(/^cloud-init [\d.]+ ran init-local, init\b/);
    expect(stepOf(diagnosis, 'address')?.evidence).toBe(`${ready.status.ip} from the guest agent`);
    expect(stepOf(diagnosis, 'port')?.evidence).toMatch(new RegExp(`^${ready.status.ip?.replaceAll('.', '\\.')}:3128 accepted a TCP connection`));
    expect(stepOf(diagnosis, 'probe')?.evidence).toContain('the target answered HTTP 200 through the proxy');
    expect(stepOf(diagnosis, 'egress')?.evidence).toMatch(/^the IP-echo URL sees \d+\.\d+\.\d+\.\d+$/);
    expect(diagnosis.firstFailure).toBeNull();
  });

  it('fails at "proxy port open" once Squid is stopped in the guest, and skips the probe', async () => {
    await guestShell(proxy.domain, 'systemctl stop squid');
    const diagnosis = await diagnose('Squid stopped');
    expect(diagnosis.firstFailure).toBe('port');
    expect(statusOf(diagnosis)).toMatchObject({
      host: 'pass',
      domain: 'pass',
      seed: 'pass',
      'cloud-init': 'pass',
      agent: 'pass',
      address: 'pass',
      port: 'fail',
      probe: 'skipped',
      egress: 'skipped',
    });
    expect(stepOf(diagnosis, 'port')).toMatchObject({
      evidence: `${ready.status.ip}:3128 refused the connection: nothing listens on port 3128`,
      next: expect.stringContaining('systemctl status squid'),
    });
  });
});
