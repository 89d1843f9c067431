// The leadership fence at the connection, on the real libvirtd over SSH: a leader that loses its
// lease in the middle of a base image download, its pooled connection gone meanwhile, has the
// download aborted (as the step-down aborts the loops' work) and deletes nothing afterwards: the
// cleanup neither redials nor removes the half-written base. The base stays without its marker,
// for the next leader's Create to delete and redo.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKvm2Provider, type Kvm2Provider } from '@/server/providers/kvm2/provider';
import { urlImageKey } from '@/server/providers/kvm2/volume';
import { createLogger } from '@/server/telemetry/logger';
import { loadLab, type Lab } from './harness/lab';
import { failureOf, Kvm2LabRun, type LogLine } from './kvm2-provider-support';

let lab: Lab;
let run: Kvm2LabRun;
let provider: Kvm2Provider;
const lease = { leading: true };
const logs: LogLine[] = [];

beforeAll(() => {
  lab = loadLab();
  run = new Kvm2LabRun(lab);
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => void logs.push(JSON.parse(line) as LogLine) } });
  provider = createKvm2Provider({ entry: run.entry(), logger, mayAct: () => lease.leading });
});
afterAll(async () => {
  await provider?.close().catch(() => undefined);
  await run.cleanUp();
});

describe('a leader that loses its lease mid-download', () => {
  it('deletes nothing afterwards: the half-written base stays, without its marker, and no connection is dialled', async () => {
    const url = `${lab.imageServer.url}/variants/slow.qcow2?chunk=16384&intervalMs=500`;
    const name = run.domainName('fenced');
    const controller = new AbortController();
    const create = failureOf(
      provider.create(
        { name, uid: `uid-${name}`, placement: { zone: 'lab1', machineType: 'small', image: url }, cloudInit: '#cloud-config\n', port: 3128 },
        { signal: controller.signal },
      ),
    );
    await expect.poll(() => provider.downloads.list().some((entry) => entry.doneBytes > 0), { timeout: 20_000, interval: 10 }).toBe(true);
    const base = (await run.baseVolumes()).find((volume) => volume.includes(urlImageKey(url)));
    expect(base, 'the base volume being uploaded').toBeDefined();

    // The step-down: the lease is gone, the pooled connection with it, and the loops abort their work.
    lease.leading = false;
    await provider.backend.closeAll();
    const dialsBefore = logs.filter((line) => line.msg === 'libvirt host connected' || line.msg === 'libvirt host connect failed').length;
    controller.abort(new Error('this replica no longer leads'));
    expect(await create).toBeInstanceOf(Error);

    expect(await run.baseVolumes()).toEqual([base]);
    expect(logs.filter((line) => line.msg === 'libvirt host connected' || line.msg === 'libvirt host connect failed')).toHaveLength(dialsBefore);
  });
});
