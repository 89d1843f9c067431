// The whole path on a real guest, driven through the HTTP API, on each lab host (lab1: Debian 12's
// libvirt 9.0 / QEMU 7.2; lab2: Debian 13's libvirt 11.3 / QEMU 10): a Proxy whose cloud-init opens
// Squid to the lab network boots the lab's Debian guest image under UEFI (software emulation, so
// minutes), gets its address from the guest agent the vendor-data script started, passes the probe
// through Squid to the lab image server, and leaves nothing behind when deleted.
// On lab1 the same guest also carries the diagnosis and serial-console checks (one boot instead of
// three, minutes each under software emulation): the diagnosis with the lab image server's /ip as
// the IP-echo URL passes every step once Ready ("boot reached cloud-init" from the boot capture of
// the serial console) and, with Squid stopped in the guest, fails at "proxy port open" and skips the
// probe; the console holds the whole boot from the first start and takes keystrokes, through the API
// and in the proxy page's terminal (screenshot). Diagnosis durations are printed, not asserted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Diagnosis, diagnosisSchema } from '@/lib/api/diagnosis';
import type { ProxyView } from '@/lib/proxy-spec';
import { buildVendorData } from '@/server/providers/kvm2/seed';
import { launchBrowser, screenshot } from '@/test/e2e/harness/browser';
import { logIn } from '@/test/e2e/harness/dashboard';
import { imageServerStats, resetImageServerStats, virsh } from '@/test/lab/harness/lab';
import { guestIPv4Addresses, guestShell } from './harness/guest-agent';
import { domainMac, leasedAddress } from './harness/guest-domain';
import { guestImageKeys, guestProviders, poolVolumes } from './harness/guest-lab';
import { GuestProxy, guestSessionForFile } from './harness/guest-proxy';
import { markerPath, squidCloudInit } from './harness/proxy-guest';

const bootTimeoutMs = 15 * 60_000;
const session = guestSessionForFile({ env: (lab) => ({ IP_ECHO_URL: `${lab.guest.imageServerVmUrl}/ip` }) });
const loginPrompt = /\S+ login: /;

const diagnosisSteps = ['host', 'domain', 'seed', 'cloud-init', 'agent', 'address', 'port', 'probe', 'egress'];
const everyStep = (status: string) => Object.fromEntries(diagnosisSteps.map((id) => [id, status]));
const statusOf = (diagnosis: Diagnosis) => Object.fromEntries(diagnosis.steps.map((step) => [step.id, step.status]));
const stepOf = (diagnosis: Diagnosis, id: string) => diagnosis.steps.find((step) => step.id === id);
const promptsIn = (text: string) => text.match(new RegExp(loginPrompt.source, 'g'))?.length ?? 0;

describe.each(['lab1', 'lab2'])('a Proxy on a real Debian guest booted under UEFI on %s, through the HTTP API', (host) => {
  const cloudInit = squidCloudInit();
  let proxy: GuestProxy;
  let ready: ProxyView;

  beforeAll(() => {
    proxy = new GuestProxy(session(), {
      name: `guest-uefi-${host}`,
      host,
      provider: guestProviders.withAgent,
      firmware: 'uefi',
      cloudInit,
      variant: `uefi-${host}`,
    });
    const { image } = session();
    Object.assign(proxy.timings, {
      imageBuildColdSeconds: image.coldBuildSeconds,
      imageThisRunSeconds: Math.round(image.thisCallSeconds * 10) / 10,
      imageBuiltThisRun: Number(image.built),
    });
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it('goes Provisioning → Running with the address its guest agent reports, then Ready', async () => {
    await resetImageServerStats(session().lab);
    await proxy.create();
    ready = await proxy.waitForReady(bootTimeoutMs);
    expect(ready.instanceName).toMatch(/^proxy-[0-9a-f]{16}$/);
    expect(ready.status.providerID).toBe(`hosts/${host}/domains/${ready.instanceName}`);

    // The reconciler's own record of the way there, oldest first.
    const events = [...(await proxy.noteMilestones())].reverse();
    const phaseChanges = events.filter((event) => event.reason === 'PhaseChanged').map((event) => event.message);
    expect(phaseChanges.slice(-2)).toEqual([expect.stringMatching(/→ Provisioning$/), 'Provisioning → Running']);
    const running = events.findIndex((event) => event.message === 'Provisioning → Running');
    expect(events.findIndex((event) => event.reason === 'Healthy')).toBeGreaterThan(running);

    // The address is the guest's own (agent) and the one the host's DHCP leased to the VM's NIC. On
    // lab2 ARP may have given it before the vendor-data script started the agent.
    await proxy.waitForAgent(5 * 60_000);
    expect(await guestIPv4Addresses(proxy.domain)).toEqual([ready.status.ip]);
    expect(leasedAddress(proxy.host, await domainMac(proxy.domain))).toBe(ready.status.ip);
    expect(await virsh(['domifaddr', proxy.domain.name, '--source', 'agent'], proxy.host)).toContain(`${ready.status.ip}/24`);
    expect(ready.status.ip?.startsWith(proxy.host.vmNetwork.replace(/0\/24$/, ''))).toBe(true);
  });

  it('received its user-data byte for byte and ran the vendor-data script, which started the agent', async () => {
    const { domain } = proxy;
    const seeded = await guestShell(
      domain,
      'mkdir -p /run/kvm2-seed && (mountpoint -q /run/kvm2-seed || mount -o ro /dev/sr0 /run/kvm2-seed) && cat /run/kvm2-seed/user-data',
    );
    expect(seeded.equals(Buffer.from(cloudInit.userData, 'utf8')), seeded.toString('utf8')).toBe(true);
    const consumed = await guestShell(domain, 'cat /var/lib/cloud/instance/user-data.txt');
    expect(consumed.equals(Buffer.from(cloudInit.userData, 'utf8'))).toBe(true);
    expect((await guestShell(domain, `cat ${markerPath}`)).toString()).toBe(`${cloudInit.marker}\n`);

    const vendorData = await guestShell(domain, 'cat /var/lib/cloud/instance/vendor-data.txt');
    expect(vendorData.toString('utf8')).toBe(buildVendorData({ installGuestAgent: true }));
    const output = (await guestShell(domain, 'cat /var/log/cloud-init-output.log')).toString();
    expect(output).toContain('kvm2: qemu-guest-agent step finished');
    expect((await guestShell(domain, 'cloud-init status')).toString()).toContain('status: done');
    // The image masks the agent's udev autostart: it runs because the vendor-data script started it.
    expect((await guestShell(domain, 'readlink /etc/udev/rules.d/60-qemu-guest-agent.rules')).toString().trim()).toBe('/dev/null');
  });

  it('is Ready because the probe went through Squid in the guest to the lab image server', async () => {
    expect(ready.status.healthy).toBe(true);
    expect(ready.status.conditions).toContainEqual(expect.objectContaining({ type: 'Healthy', status: 'True', reason: 'TargetReachable' }));
    expect((await imageServerStats(session().lab))['/probe']).toBeGreaterThan(0);
    const accessLog = (await guestShell(proxy.domain, 'cat /var/log/squid/access.log')).toString();
    expect(accessLog).toContain(`GET ${session().probeUrl}`);
  });

  if (host === 'lab1') {
    const diagnose = async (label: string): Promise<Diagnosis> => {
      const answer = await session().api.call({ method: 'GET', path: `/api/proxies/${proxy.options.name}/diagnosis` });
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      const diagnosis = diagnosisSchema.parse(answer.json);
      console.log(`real-guest diagnosis (${label}): ${diagnosis.durationMs} ms (${diagnosis.steps.map((step) => `${step.id} ${step.durationMs}`).join(', ')})`);
      return diagnosis;
    };

    it('passes every step of its diagnosis once Ready', async () => {
      const diagnosis = await diagnose('Ready');
      expect(statusOf(diagnosis)).toEqual(everyStep('pass'));
      expect(stepOf(diagnosis, 'cloud-init')?.evidence).toMatch(/^cloud-init [\d.]+ ran init-local, init\b/);
      expect(stepOf(diagnosis, 'address')?.evidence).toBe(`${ready.status.ip} from the guest agent`);
      expect(stepOf(diagnosis, 'port')?.evidence).toMatch(new RegExp(`^${ready.status.ip?.replaceAll('.', '\\.')}:3128 accepted a TCP connection`));
      expect(stepOf(diagnosis, 'probe')?.evidence).toContain('the target answered HTTP 200 through the proxy');
      expect(stepOf(diagnosis, 'egress')?.evidence).toMatch(/^the IP-echo URL sees \d+\.\d+\.\d+\.\d+$/);
      expect(diagnosis.firstFailure).toBeNull();
    });

    it('holds the boot in its serial console from the first start: kernel, cloud-init, the agent step and the login prompt', async () => {
      const deadline = Date.now() + 5 * 60_000;
      let text = '';
      // The login prompt follows cloud-init's final stage; wait for it on the console itself.
      while (!loginPrompt.test(text) && Date.now() < deadline) {
        text = (await session().api.consoleStart(proxy.options.name)).text;
        if (!loginPrompt.test(text)) await new Promise((resolve) => setTimeout(resolve, 3_000));
      }
      console.log(`console of ${proxy.options.name} (${text.length} characters), last lines:\n${text.split('\n').slice(-15).join('\n')}`);
      expect(text).toMatch(loginPrompt);
      expect(text).toMatch(/Linux version \d+\.\d+/);
      expect(text).toMatch(/Cloud-init v\. [\d.]+ running 'init-local'/);
      expect(text).toMatch(/Cloud-init v\. [\d.]+ running 'modules:final'/);
      // The vendor-data script started the agent (its own output goes to cloud-init-output.log only).
      expect(text).toMatch(/Started \S*qemu-guest-agent\.service/);
      expect(text).toMatch(/Cloud-init v\. [\d.]+ finished at/);
      expect(text).toContain('Debian GNU/Linux 12');
    });

    it('takes keystrokes on its console: Enter at the login prompt brings a fresh one', async () => {
      const before = await session().api.consoleStart(proxy.options.name);
      expect(before.status).toEqual({ state: 'live' });
      await session().api.consoleInput(proxy.options.name, '\r');
      const deadline = Date.now() + 60_000;
      let after = before.text;
      while (promptsIn(after) <= promptsIn(before.text) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        after = (await session().api.consoleStart(proxy.options.name)).text;
      }
      expect(promptsIn(after)).toBeGreaterThan(promptsIn(before.text));
    });

    it('shows the boot log and the prompt in the terminal on the proxy page', async () => {
      const browser = await launchBrowser();
      try {
        const page = await browser.newPage({ height: 1400 });
        await logIn(page, { url: session().app.url, password: session().app.password });
        await page.goto(`${session().app.url}/proxies/${proxy.options.name}`);
        const rows = page.getByTestId('console-terminal').locator('.xterm-rows');
        await expect.poll(async () => rows.innerText(), { timeout: 60_000, interval: 500 }).toMatch(loginPrompt);
        console.log(`screenshot: ${await screenshot(page, 'guest-console-login-prompt')}`);
      } finally {
        await browser.close();
      }
    });

    it('fails its diagnosis at "proxy port open" once Squid is stopped in the guest, and skips the probe', async () => {
      await guestShell(proxy.domain, 'systemctl stop squid');
      const diagnosis = await diagnose('Squid stopped');
      expect(diagnosis.firstFailure).toBe('port');
      expect(statusOf(diagnosis)).toEqual({ ...everyStep('pass'), port: 'fail', probe: 'skipped', egress: 'skipped' });
      expect(stepOf(diagnosis, 'port')).toMatchObject({
        evidence: `${ready.status.ip}:3128 refused the connection: nothing listens on port 3128`,
        next: expect.stringContaining('systemctl status squid'),
      });
    });
  }

  it('is deleted through the API, leaving nothing of it on the host but the cached base image', async () => {
    expect(await proxy.delete()).toEqual([]);
    const base = `base-${guestProviders.withAgent}-${guestImageKeys(session().image).uefi}.qcow2`;
    expect(await poolVolumes(proxy.host, base)).toEqual([base, `${base}.sha256`]);
  });
});
