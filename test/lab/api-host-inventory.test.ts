// The HTTP API against the lab's real libvirtd over real sshd: the host listing shows the lab's
// pools (the stopped one as inactive) and a domain defined by hand with virsh as foreign; a Proxy
// created through the API on lab1 shows up as a managed domain backing onto the cached image (and
// not on lab2's page: another hypervisor); evicting
// that image is refused (409) while the domain exists and works once the Proxy is deleted.
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instanceName } from '@/server/control/names';
import { handlers as h } from '@/test/unit/api-harness';
import { loadLab, removeDomain, virsh } from './harness/lab';
import { startLabApi, type LabApi } from './api-lab-support';

let api: LabApi;
let foreign: string;
beforeAll(async () => {
  api = await startLabApi(loadLab());
  foreign = `kvm2test-${api.entryName}-foreign`;
});
afterAll(async () => {
  await removeDomain(foreign).catch(() => undefined);
  await api?.close();
});

interface DomainView {
  name: string;
  kind: string;
  state: string;
  proxy?: string;
}
interface ImageView {
  volume: string;
  complete: boolean;
  usedBy: number;
  domains: string[];
}

const host = 'lab1';
const listHost = async (name = host) => {
  const answer = await api.call(h.host.GET, `/api/providers/${api.entryName}/hosts/${name}`, 'GET', {
    session: true,
    params: { provider: api.entryName, host: name },
  });
  expect(answer.status, answer.text.slice(0, 300)).toBe(200);
  return answer.json as { pools: Array<{ name: string; state: string; configured: boolean }>; images: ImageView[]; domains: DomainView[] };
};
const evict = (volume: string) =>
  api.call(h.hostImage.DELETE, `/api/providers/${api.entryName}/hosts/${host}/images/${volume}`, 'DELETE', {
    session: true,
    params: { provider: api.entryName, host, volume },
  });
const poolVolumes = async () =>
  (await virsh(['vol-list', '--pool', api.lab.pool.name]))
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0] ?? '')
    .filter((name) => name !== '');

describe('the host listing on the lab', () => {
  it("shows the lab's pools, the stopped one as inactive", async () => {
    const listing = await listHost();
    expect(listing.pools).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: api.lab.pool.name, state: 'running', configured: true }),
        expect.objectContaining({ name: api.lab.inactivePool.name, state: 'inactive', configured: false }),
      ]),
    );
  });

  it('shows a domain defined by hand with virsh as foreign', async () => {
    const file = join(tmpdir(), `${foreign}.xml`);
    writeFileSync(
      file,
      `<domain type="qemu"><name>${foreign}</name><memory unit="MiB">64</memory><vcpu>1</vcpu><os><type arch="x86_64">hvm</type></os></domain>`,
    );
    await virsh(['define', file]).finally(() => rmSync(file, { force: true }));
    const listing = await listHost();
    expect(listing.domains.find((domain) => domain.name === foreign)).toEqual({ name: foreign, state: 'shut off', kind: 'foreign' });
  });

  it('shows a Proxy created through the API as a managed domain backing onto the cached image', async () => {
    const name = api.proxyName('inv');
    const created = await api.call(h.proxies.POST, '/api/proxies', 'POST', {
      session: true,
      body: { name, mode: 'Managed', provider: api.entryName, placement: { zone: host, machineType: 'small', image: 'lab' }, cloudInit: '#cloud-config\n' },
    });
    expect(created.status, created.text).toBe(201);
    const domain = instanceName(name);
    await expect
      .poll(async () => (await listHost()).domains.some((entry) => entry.name === domain), {
        message: `domain ${domain} on ${host}`,
        timeout: 110_000,
        interval: 500,
      })
      .toBe(true);
    const listing = await listHost();
    expect(listing.domains.find((entry) => entry.name === domain)).toMatchObject({ kind: 'managed', proxy: name });
    const image = listing.images.find((entry) => entry.volume === `base-${api.entryName}-lab.qcow2`);
    expect(image).toMatchObject({ complete: true, usedBy: 1, domains: [domain] });
    // lab2 is a hypervisor of its own: neither the domain nor the image is on its page.
    const other = await listHost('lab2');
    expect(other.domains.map((entry) => entry.name)).not.toContain(domain);
    expect(other.images.map((entry) => entry.volume)).not.toContain(`base-${api.entryName}-lab.qcow2`);
  });

  it('refuses to evict the image in use (409) and leaves it in the pool', async () => {
    const base = `base-${api.entryName}-lab.qcow2`;
    const refused = await evict(base);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.json.error.message).toContain(instanceName(api.proxyName('inv')));
    expect(await poolVolumes()).toEqual(expect.arrayContaining([base, `${base}.sha256`]));
  });

  it('evicts the image once its Proxy is deleted: marker, then base, gone from the pool', async () => {
    const name = api.proxyName('inv');
    expect((await api.call(h.proxy.DELETE, `/api/proxies/${name}`, 'DELETE', { session: true, params: { name } })).status).toBe(202);
    await expect
      .poll(async () => (await api.runtime.store.proxies.get(name)) === undefined, { message: `${name} to be deleted`, timeout: 110_000, interval: 500 })
      .toBe(true);
    const base = `base-${api.entryName}-lab.qcow2`;
    const evicted = await evict(base);
    expect(evicted.status, evicted.text).toBe(200);
    expect(evicted.json.removed).toEqual([`${base}.sha256`, base]);
    const left = await poolVolumes();
    expect(left).not.toContain(base);
    expect(left).not.toContain(`${base}.sha256`);
    expect((await listHost()).images.map((image) => image.volume)).not.toContain(base);
  });
});
