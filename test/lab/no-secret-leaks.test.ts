// Secrets never leave through the API or the logs, against the lab's real hosts: the SSH private
// key and known_hosts the kvm2 entry dials with, a marker in a Proxy's cloud-init (which really
// travels to the host in the seed ISO), the admin password, an API token and the session cookies.
// A run through every route, with RPC detail logged at trace level, then every response body and
// log line is searched for each of them (the token's own creation answer aside).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instanceName } from '@/server/control/names';
import { adminPassword, handlers as h, routeTable } from '@/test/unit/api-harness';
import { loadLab, virsh } from './harness/lab';
import { startLabApi, type LabApi } from './api-lab-support';

let api: LabApi;
const marker = `CLOUDINIT${randomBytes(6).toString('hex')}`;
const cloudInit = `#cloud-config\nwrite_files:\n  - path: /etc/marker\n    content: ${marker}\n`;
const shownOnce: string[] = [];
let token = '';

beforeAll(async () => {
  api = await startLabApi(loadLab());
});
afterAll(async () => {
  await api?.close();
});

/** The key's base64 body lines and every known_hosts field long enough to be unmistakable. */
function fileSecrets(): Record<string, string> {
  const key = readFileSync(api.lab.sshKeyFile, 'utf8')
    .split('\n')
    .filter((line) => line.length >= 20 && !line.startsWith('-----'));
  const knownHosts = readFileSync(api.lab.knownHostsFile, 'utf8')
    .split('\n')
    .flatMap((line) => line.split(/\s+/))
    .filter((field) => field.length >= 20);
  expect(key.length).toBeGreaterThan(0);
  expect(knownHosts.length).toBeGreaterThan(0);
  return Object.fromEntries([
    ...key.map((line, index) => [`private key line ${index}`, line]),
    ...knownHosts.map((field, index) => [`known_hosts field ${index}`, field]),
  ]);
}

describe('no secret leaks on the lab', () => {
  it('runs a Proxy through its life with every route called', async () => {
    const s = { session: true } as const;
    const provider = api.entryName;
    const name = api.proxyName('leak');
    const domain = instanceName(name);
    await api.call(h.login.POST, '/api/auth/login', 'POST', { body: { password: `${adminPassword}!` } });
    const body = { name, mode: 'Managed', provider, placement: { zone: 'lab1', machineType: 'small', image: 'lab' }, cloudInit };
    expect((await api.call(h.proxies.POST, '/api/proxies', 'POST', { ...s, body })).status).toBe(201);
    await api.call(h.proxies.POST, '/api/proxies', 'POST', { ...s, body: { ...body, name: 'Bad_Name' } });
    await api.call(h.proxies.POST, '/api/proxies', 'POST', { ...s, body: { ...body, name: 'other', port: 'x' } });
    await expect
      .poll(async () => (await virsh(['domstate', domain]).catch(() => '')).trim() === 'running', {
        message: `${domain} running`,
        timeout: 110_000,
        interval: 500,
      })
      .toBe(true);
    // The marker really went to the host, inside the seed ISO.
    const seed = await virsh(['vol-path', '--pool', api.lab.pool.name, `${domain}-seed.iso`]);
    expect(readFileSync(seed.trim()).includes(marker)).toBe(true);

    const created = await api.call(h.tokens.POST, '/api/tokens', 'POST', { ...s, body: { name: 'crawler' } });
    token = created.json.token;
    shownOnce.push(created.text);
    // A set of no members under the Proxy's name, so the set routes answer too; its template carries the marker.
    const template = { provider, placement: { machineType: 'small', image: 'lab' }, cloudInit };
    expect((await api.call(h.proxySets.POST, '/api/proxysets', 'POST', { ...s, body: { name, template, replicas: 0 } })).status).toBe(201);
    const params: Record<string, string> = { provider, host: 'lab1', name, volume: `base-${provider}-lab.qcow2` };
    const concrete = (path: string) => path.replace('fake-1', provider).replace('kvm2-home', provider).replace('hv-1', 'lab1').replace('alpha', name);
    for (const row of routeTable.filter((entry) => entry.method === 'GET')) {
      const rowParams = row.params && Object.fromEntries(Object.keys(row.params).map((key) => [key, params[key] as string]));
      const answer = await api.call(row.handler, `${concrete(row.path)}${row.query ? `?${row.query}` : ''}`, 'GET', {
        ...(row.access === 'reader' ? { bearer: token } : s),
        params: rowParams,
      });
      expect(answer.status, `${row.path}: ${answer.text.slice(0, 200)}`).toBe(200);
    }
    expect((await api.call(h.proxySet.DELETE, `/api/proxysets/${name}`, 'DELETE', { ...s, params: { name } })).status).toBe(202);
    const images = params.volume!;
    expect(
      (await api.call(h.hostImage.DELETE, '/api/providers/x/hosts/lab1/images/x', 'DELETE', { ...s, params: { provider, host: 'lab1', volume: images } }))
        .status,
    ).toBe(409);

    const { name: _name, ...spec } = body;
    expect((await api.call(h.proxy.PUT, `/api/proxies/${name}`, 'PUT', { ...s, params: { name }, body: { ...spec, port: 3129 } })).status).toBe(200);
    await expect
      .poll(
        async () => (await api.runtime.services.proxies.get(name)).status.observedSpecHash === (await api.runtime.services.proxies.get(name)).status.specHash,
        {
          message: 'the replacement',
          timeout: 110_000,
          interval: 500,
        },
      )
      .toBe(true);
    expect((await api.call(h.proxy.DELETE, `/api/proxies/${name}`, 'DELETE', { ...s, params: { name } })).status).toBe(202);
    await expect
      .poll(async () => (await api.runtime.store.proxies.get(name)) === undefined, { message: `${name} deleted`, timeout: 110_000, interval: 500 })
      .toBe(true);
    await api.call(h.logout.POST, '/api/auth/logout', 'POST', s);
    expect(api.logs.some((line) => line.includes('"msg":"libvirt call"') && line.includes('StorageVolUpload'))).toBe(true);
  });

  it('shows none of the secrets in any response or log line', () => {
    const secrets = { ...fileSecrets(), cloudInitMarker: marker, adminPassword, token, session: api.session };
    const bodies = api.responses.filter((text) => !shownOnce.includes(text));
    for (const [what, secret] of Object.entries(secrets)) {
      expect(bodies.filter((text) => text.includes(secret)).length, `${what} in a response`).toBe(0);
      expect(api.logs.filter((line) => line.includes(secret)).slice(0, 2), `${what} in the log`).toEqual([]);
    }
  });
});
