// A Proxy VM's serial console through the HTTP API against the lab's real libvirtd over real sshd.
// Boot capture opens it from the domain's first start (the lab image has no OS: what shows is
// OVMF's UEFI shell); the SSE stream gives the buffer, then live output; another client holding
// the console (as `virsh console` does: DOMAIN_OPEN_CONSOLE without FORCE, over its own
// connection) makes it busy, named with its host, and keystrokes are refused; "take over" forces
// it back and disconnects that client, and keystrokes reach the guest (the shell runs what is
// typed); deleting the Proxy ends the console.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEventStream } from '@/lib/api/event-stream';
import { instanceName } from '@/server/control/names';
import { DomainConsoleFlags, isLibvirtError, type DuplexStream, type LibvirtClient } from '@/server/libvirt';
import { handlers as h } from '@/test/unit/api-harness';
import { loadLab } from './harness/lab';
import { startLabApi, type LabApi } from './api-lab-support';
import { consoleEnd, openOverSsh } from './rpc-lab-support';

let api: LabApi;
/** Another admin's libvirt client on lab1, holding the console as `virsh console` would. */
let other: LibvirtClient;
let name = '';
const host = 'lab1';

beforeAll(async () => {
  const lab = loadLab();
  api = await startLabApi(lab);
  other = await openOverSsh(lab, { host: lab.hosts[0] });
  name = api.proxyName('console');
});
afterAll(async () => {
  await other?.close();
  await api?.close();
});

const params = () => ({ session: true, params: { name } });
const consoleEvents = async () => {
  const answer = await api.call(h.proxyConsole.GET, `/api/proxies/${name}/console`, 'GET', params());
  expect(answer.status, answer.text.slice(0, 300)).toBe(200);
  return parseEventStream(answer.text).events as Array<{ event: string; data: { data?: string; state?: string; message?: string } }>;
};

describe('the console of a Proxy VM on the lab', () => {
  it('is captured from the first start: the buffer holds what the firmware printed', async () => {
    const created = await api.call(h.proxies.POST, '/api/proxies', 'POST', {
      session: true,
      body: { name, mode: 'Managed', provider: api.entryName, placement: { zone: host, machineType: 'small', image: 'lab' }, cloudInit: '#cloud-config\n' },
    });
    expect(created.status, created.text).toBe(201);
    await expect
      .poll(() => api.runtime.services.consoles.status(name).state, { message: 'boot capture to open the console', timeout: 110_000, interval: 200 })
      .toBe('live');
    // OVMF finds nothing to boot on the lab image (no OS) and starts its UEFI shell, on the serial console.
    await expect
      .poll(() => api.runtime.services.consoles.consoleLog(name) ?? '', { message: 'the UEFI shell banner in the buffer', timeout: 110_000, interval: 500 })
      .toContain('UEFI Interactive Shell');
  });

  it('streams the buffer first, then the status, over the API', async () => {
    const events = await consoleEvents();
    expect(events[0]?.event).toBe('snapshot');
    const snapshot = Buffer.from(events[0]?.data.data ?? '', 'base64').toString();
    expect(snapshot.length).toBeGreaterThan(0);
    expect(api.runtime.services.consoles.consoleLog(name)).toContain(snapshot.slice(0, 40));
    expect(events[1]).toEqual({ event: 'status', data: { state: 'live' } });
  });

  let held: DuplexStream;
  it('is busy while another client holds it: the message names the host and what take over does; keystrokes are refused', async () => {
    // The other client forces it away from us, then holds it: our session ends...
    held = await other.domainOpenConsole({ dom: await other.domainLookupByName({ name: instanceName(name) }), flags: DomainConsoleFlags.Force });
    await expect.poll(() => api.runtime.services.consoles.status(name).state, { timeout: 15_000, interval: 100 }).toBe('closed');
    // ...and a page that looks now finds it busy, not taken back.
    const events = await consoleEvents();
    const statuses = events.filter((event) => event.event === 'status');
    expect(statuses[0]?.data.state).toMatch(/^(opening|closed)$/);
    await expect.poll(() => api.runtime.services.consoles.status(name).state, { timeout: 15_000, interval: 100 }).toBe('busy');
    const status = api.runtime.services.consoles.status(name);
    expect('message' in status && status.message).toMatch(
      new RegExp(`serial console of ${instanceName(name)} on host ${host}.*"take over" disconnects that client`),
    );
    const typed = await api.call(h.proxyConsoleInput.POST, `/api/proxies/${name}/console/input`, 'POST', { ...params(), body: { data: '\r' } });
    expect(typed.status, typed.text).toBe(409);
    expect(typed.json.error.code).toBe('ERR_CONSOLE_BUSY');
  });

  it('take over forces it back: the other client is disconnected, keystrokes go through', async () => {
    const otherEnded = consoleEnd(held);
    const taken = await api.call(h.proxyConsoleTakeover.POST, `/api/proxies/${name}/console/takeover`, 'POST', params());
    expect(taken.status, taken.text).toBe(200);
    expect(taken.json).toEqual({ state: 'live' });
    expect(isLibvirtError(await otherEnded, 'ErrRPC')).toBe(true);
    const type = async (data: string) => {
      const typed = await api.call(h.proxyConsoleInput.POST, `/api/proxies/${name}/console/input`, 'POST', { ...params(), body: { data } });
      expect(typed.status, typed.text).toBe(200);
      expect(typed.json).toEqual({ sentBytes: Buffer.byteLength(data) });
    };
    // Enter ends the shell's startup countdown or gives a fresh prompt: one more `Shell>` either way.
    const prompts = () => (api.runtime.services.consoles.consoleLog(name) ?? '').split('Shell>').length - 1;
    const before = prompts();
    await type('\r');
    await expect.poll(prompts, { message: 'a fresh shell prompt', timeout: 60_000, interval: 250 }).toBeGreaterThan(before);
    await type('echo typed-through-api\r');
    // The shell's line editor moves the cursor with escape sequences: read the text without them.
    const plain = () => (api.runtime.services.consoles.consoleLog(name) ?? '').replace(/\x1b\[[0-9;=?]*[A-Za-z]/g, '');
    await expect
      .poll(plain, { message: 'the command echoed, then its output', timeout: 60_000, interval: 250 })
      .toMatch(/echo typed-through-api[^]*\ntyped-through-api/)
      .catch((err: unknown) => {
        console.log(`console without escapes, last 600 characters:\n${JSON.stringify(plain().slice(-600))}`);
        throw err;
      });
  });

  it('ends when the Proxy is deleted', async () => {
    const deleted = await api.call(h.proxy.DELETE, `/api/proxies/${name}`, 'DELETE', params());
    expect(deleted.status).toBe(202);
    await expect.poll(() => api.runtime.services.consoles.status(name).state, { timeout: 110_000, interval: 500 }).toBe('closed');
    await expect.poll(() => api.runtime.store.proxies.get(name), { timeout: 110_000, interval: 500 }).toBeUndefined();
  });
});
