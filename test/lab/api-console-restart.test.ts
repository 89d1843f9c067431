// Boot capture survives a server restart, against the lab's real libvirtd over real sshd: the app
// is restarted while a Proxy is Provisioning (its domain has no OS, so it never gets an address:
// OVMF ends in its UEFI shell; on lab1 no address source even answers, so every Get fails), and
// the new process's first pass opens the console again, without force and with no page watching,
// so the rest of the boot log lands in the new buffer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handlers as h } from '@/test/unit/api-harness';
import { loadLab } from './harness/lab';
import { startLabApi, type LabApi } from './api-lab-support';

let api: LabApi;
let name = '';

beforeAll(async () => {
  api = await startLabApi(loadLab());
  name = api.proxyName('restart');
});
afterAll(async () => {
  await api?.close();
});

const consoleOpens = () => api.logs.filter((line) => line.includes('"msg":"console opened"') && line.includes(`"proxy":"${name}"`));

describe('boot capture across a server restart', () => {
  it('is reopened by the restarted app while the Proxy is Provisioning, and captures what follows', async () => {
    const created = await api.call(h.proxies.POST, '/api/proxies', 'POST', {
      session: true,
      body: { name, mode: 'Managed', provider: api.entryName, placement: { zone: 'lab1', machineType: 'small', image: 'lab' }, cloudInit: '#cloud-config\n' },
    });
    expect(created.status, created.text).toBe(201);
    await expect
      .poll(() => api.runtime.services.consoles.status(name).state, { message: 'boot capture from the first start', timeout: 110_000, interval: 200 })
      .toBe('live');
    const opensBefore = consoleOpens().length;

    await api.restart();
    expect((await api.runtime.services.proxies.get(name)).status.phase).toBe('Provisioning');
    await expect
      .poll(() => api.runtime.services.consoles.status(name).state, { message: 'boot capture reopened after the restart', timeout: 30_000, interval: 200 })
      .toBe('live');
    // What the guest prints from now on lands in the new process's buffer: the shell's prompt, once
    // it starts or (already running) after an Enter.
    const typed = await api.call(h.proxyConsoleInput.POST, `/api/proxies/${name}/console/input`, 'POST', {
      session: true,
      params: { name },
      body: { data: '\r' },
    });
    expect(typed.status, typed.text).toBe(200);
    await expect
      .poll(() => api.runtime.services.consoles.consoleLog(name) ?? '', { message: 'the UEFI shell prompt in the new buffer', timeout: 110_000, interval: 500 })
      .toContain('Shell>');
    const reopened = consoleOpens().slice(opensBefore);
    // On failure, every console line of this Proxy (both processes) says who opened and closed it.
    const consoleLines = api.logs.filter((line) => line.includes(`"proxy":"${name}"`) && /console|capture/.test(line));
    expect(reopened.length, consoleLines.join('\n')).toBeGreaterThanOrEqual(1);
    for (const open of reopened) expect(open).toContain('"force":false');
    // Never two sessions at once: an open after the restart's first one only follows the end of
    // the one before (one full run saw a second open; its cause is not known yet).
    const afterRestart = consoleLines.slice(consoleLines.indexOf(reopened[0]!));
    afterRestart.forEach((line, index) => {
      if (index === 0 || !line.includes('"msg":"console opened"')) return;
      const previousOpen = afterRestart.slice(0, index).findLastIndex((earlier) => earlier.includes('"msg":"console opened"'));
      const since = afterRestart.slice(previousOpen + 1, index);
      expect(
        since.some((earlier) => /"msg":"console (closed|released)"/.test(earlier)),
        consoleLines.join('\n'),
      ).toBe(true);
    });
  });
});
