// Secrets never leave through the API or the logs: a run through every route, with a kvm2 entry
// whose key and known_hosts files carry markers, Proxies whose cloud-init carries a marker (good
// requests and malformed ones), keystrokes typed into a console, logins, API and gateway tokens and sessions. Every response body and every
// log line written meanwhile is searched for each secret; none may appear (the new token's own
// creation answer aside, which is the one place it is shown).
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxCloudInitBytes } from '@/lib/proxy-spec';
import { tempDir } from '@/test/fakes/control-plane';
import { adminPassword, handlers as h, routeTable, startApi, type ApiHarness } from './api-harness';

const marker = randomBytes(6).toString('hex');
const secrets = {
  privateKey: `KEYMATERIAL${marker}`,
  knownHosts: `KNOWNHOSTS${marker}`,
  cloudInit: `CLOUDINIT${marker}`,
  imageUrlPassword: 'hunter2',
  consoleKeystrokes: `TYPED${marker}`,
};
const keyText = `-----BEGIN OPENSSH PRIVATE KEY-----\n${secrets.privateKey}\n-----END OPENSSH PRIVATE KEY-----\n`;
const knownHostsText = `|1|${secrets.knownHosts}= ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${secrets.knownHosts}\n`;
const cloudInit = `#cloud-config\nwrite_files:\n  - path: /etc/marker\n    content: ${secrets.cloudInit}\n`;

let api: ApiHarness;
let dir: ReturnType<typeof tempDir>;
const shownOnce: string[] = [];
const sessions: string[] = [];
let tokenSecret = '';
let gatewayTokenSecret = '';

beforeAll(async () => {
  dir = tempDir('leaks-');
  writeFileSync(join(dir.path, 'id_ed25519'), keyText, { mode: 0o600 });
  writeFileSync(join(dir.path, 'known_hosts'), knownHostsText);
  api = await startApi({ kvm2Files: { sshKeyFile: join(dir.path, 'id_ed25519'), knownHostsFile: join(dir.path, 'known_hosts') } });
  // The image cached as the entry configures it, so a kvm2 Create goes all the way: overlay, seed
  // ISO carrying the cloud-init, domain definition, start.
  api.hypervisor.addVolume({ name: 'base-kvm2-home-debian.qcow2', format: 'qcow2', content: 'QFI\xfb image' });
  api.hypervisor.addVolume({ name: 'base-kvm2-home-debian.qcow2.sha256', content: 'a'.repeat(64) });
  sessions.push(api.session!);
});
afterAll(async () => {
  await api?.close();
  dir?.remove();
});

const managed = (name: string, provider: string, extra: Record<string, unknown> = {}) => ({
  name,
  mode: 'Managed',
  provider,
  placement: provider === 'fake-1' ? { zone: 'host-a', machineType: 'small', image: 'debian-13' } : { zone: 'hv-1', machineType: 'small', image: 'debian' },
  cloudInit,
  ...extra,
});

describe('no secret leaks', () => {
  it('exercises every route with secrets in play', async () => {
    const s = { session: true } as const;
    await api.call(h.login.POST, '/api/auth/login', 'POST', { body: { password: `${adminPassword}-wrong` } });
    sessions.push(await api.logIn());
    await api.call(h.setup.POST, '/api/auth/setup', 'POST', { body: { password: adminPassword } });
    await api.call(h.status.GET, '/api/auth/status', 'GET', s);

    expect((await api.call(h.proxies.POST, '/api/proxies', 'POST', { ...s, body: managed('alpha', 'fake-1') })).status).toBe(201);
    expect((await api.call(h.proxies.POST, '/api/proxies', 'POST', { ...s, body: managed('on-kvm2', 'kvm2-home') })).status).toBe(201);
    // Malformed bodies carrying the marker: the 400 answers must not echo it.
    await api.call(h.proxies.POST, '/api/proxies', 'POST', { ...s, body: managed('Bad_Name', 'fake-1') });
    await api.call(h.proxies.POST, '/api/proxies', 'POST', {
      ...s,
      body: managed('beta', 'fake-1', { cloudInit: cloudInit.repeat(Math.ceil(maxCloudInitBytes / cloudInit.length) + 1) }),
    });
    await api.call(h.proxies.POST, '/api/proxies', 'POST', { ...s, body: managed('beta', 'fake-1', { port: 'x' }) });
    await api.call(h.proxies.POST, '/api/proxies', 'POST', {
      ...s,
      rawBody: `{"name":"beta","cloudInit":"${secrets.cloudInit}`,
      headers: { 'content-type': 'application/json' },
    });
    await api.call(h.proxies.POST, '/api/proxies', 'POST', { ...s, rawBody: `cloudInit=${secrets.cloudInit}`, headers: { 'content-type': 'text/plain' } });
    await api.call(h.proxy.PUT, '/api/proxies/alpha', 'PUT', {
      ...s,
      params: { name: 'alpha' },
      body: { ...managed('alpha', 'fake-1', { port: 3129 }), name: undefined },
    });
    await api.call(h.proxy.PUT, '/api/proxies/alpha', 'PUT', { ...s, params: { name: 'alpha' }, body: { ...managed('alpha', 'fake-1'), name: 'alpha' } });
    await expect
      .poll(async () => (await api.runtime.services.proxies.get('alpha')).status.phase === 'Ready', { message: 'alpha Ready', timeout: 5_000 })
      .toBe(true);
    const domain = (await api.runtime.services.proxies.get('on-kvm2')).instanceName!;
    await expect
      .poll(() => api.hypervisor.domains.has(domain) && api.hypervisor.volume(`${domain}-seed.iso`) !== undefined, {
        message: 'the kvm2 domain',
        timeout: 5_000,
      })
      .toBe(true);
    // The seed really carries the cloud-init: the marker is there to be leaked.
    expect(api.hypervisor.volume(`${domain}-seed.iso`)!.content.includes(secrets.cloudInit)).toBe(true);

    const created = await api.call(h.tokens.POST, '/api/tokens', 'POST', { ...s, body: { name: 'crawler' } });
    tokenSecret = created.json.token;
    shownOnce.push(created.text);
    const gateway = await api.call(h.gatewayTokens.POST, '/api/gateway/tokens', 'POST', { ...s, body: { name: 'crawler' } });
    gatewayTokenSecret = gateway.json.token;
    shownOnce.push(gateway.text);
    for (const row of routeTable) {
      if (row.method !== 'GET') continue;
      await api.call(row.handler, row.path, row.method, { ...(row.access === 'reader' ? { bearer: tokenSecret } : s), params: row.params });
    }
    // Keystrokes typed into a console (a password at a login prompt, say), well-formed and too long.
    const onKvm2 = { params: { name: 'on-kvm2' } };
    await api.call(h.proxyConsole.GET, '/api/proxies/on-kvm2/console', 'GET', { ...s, ...onKvm2 });
    const typed = await api.call(h.proxyConsoleInput.POST, '/api/proxies/on-kvm2/console/input', 'POST', {
      ...s,
      ...onKvm2,
      body: { data: `${secrets.consoleKeystrokes}\r` },
    });
    expect(typed.status, typed.text).toBe(200);
    expect(Buffer.concat(api.hypervisor.consoles.of(domain).input).toString()).toBe(`${secrets.consoleKeystrokes}\r`);
    const tooLong = await api.call(h.proxyConsoleInput.POST, '/api/proxies/on-kvm2/console/input', 'POST', {
      ...s,
      ...onKvm2,
      body: { data: secrets.consoleKeystrokes.repeat(400) },
    });
    expect(tooLong.status).toBe(400);
    await api.call(h.host.GET, '/api/providers/kvm2-home/hosts/hv-1', 'GET', { ...s, params: { provider: 'kvm2-home', host: 'hv-1' } });
    await api.call(h.proxyEvents.GET, '/api/proxies/on-kvm2/events', 'GET', { ...s, params: { name: 'on-kvm2' } });
    await api.call(h.proxy.GET, '/api/proxies/on-kvm2', 'GET', { ...s, params: { name: 'on-kvm2' } });
    await api.call(h.discovery.GET, '/api/discovery/proxies', 'GET', { bearer: `${tokenSecret}0` });
    await api.call(h.proxy.DELETE, '/api/proxies/alpha', 'DELETE', { ...s, params: { name: 'alpha' } });
    await api.call(h.logout.POST, '/api/auth/logout', 'POST', { session: sessions[1] });
    expect(api.responses.length).toBeGreaterThan(30);
    expect(api.logs.some((line) => line.includes('"msg":"kvm2 create resolved"'))).toBe(true);
  });

  it('shows none of them in any response body', () => {
    const bodies = api.responses.filter((text) => !shownOnce.includes(text));
    const forbidden = { ...secrets, adminPassword, tokenSecret, gatewayTokenSecret, session0: sessions[0]!, session1: sessions[1]! };
    for (const [what, secret] of Object.entries(forbidden)) {
      const leaking = bodies.filter((text) => text.includes(secret));
      expect(leaking, `${what} in a response`).toEqual([]);
    }
  });

  it('writes none of them to the log', () => {
    const forbidden = { ...secrets, adminPassword, tokenSecret, gatewayTokenSecret, session0: sessions[0]!, session1: sessions[1]! };
    for (const [what, secret] of Object.entries(forbidden)) {
      const leaking = api.logs.filter((line) => line.includes(secret));
      expect(leaking.slice(0, 3), `${what} in the log`).toEqual([]);
    }
  });
});
