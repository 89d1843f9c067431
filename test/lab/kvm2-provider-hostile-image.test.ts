// A hostile base image on both real hypervisors: a qcow2 whose header names a file on the host as
// its raw backing store (`qemu-img create -f qcow2 -F raw -b <host file>`), its sha256 configured.
// Before the fix libvirt re-owned that file to the QEMU user at domain start and QEMU opened it,
// so the guest could read any host file or device. Now Create refuses it permanently, naming the
// file; nothing of it is cached, no domain is defined, the file keeps its owner and no process on
// the machine has it open.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorClassOf } from '@/server/providers/errors';
import type { Kvm2Provider } from '@/server/providers/kvm2/provider';
import { requireTool } from '../support/system-tool';
import { loadLab, virsh, type Lab } from './harness/lab';
import { failureOf, Kvm2LabRun } from './kvm2-provider-support';

let lab: Lab;
let run: Kvm2LabRun;
let provider: Kvm2Provider;
let server: Server;
const dir = mkdtempSync(join(tmpdir(), 'hostile-image-'));
const images = new Map<string, Buffer>();

/** The host file the image names, as the host sees it; one per host so /proc fd links cannot be confused. */
const hostFileOf = (host: string) => `/var/tmp/kvm2lab-hostile-${host}-${process.pid}`;

function hostileImage(hostFile: string): Buffer {
  const path = join(dir, `${images.size}.qcow2`);
  execFileSync(requireTool('qemu-img', 'qemu-utils'), ['create', '-q', '-f', 'qcow2', '-u', '-F', 'raw', '-b', hostFile, path, '64M']);
  return readFileSync(path);
}

/** Paths every process on the machine has open (lab hosts' processes included: their pid namespaces nest in ours). */
function openFiles(): string[] {
  const paths: string[] = [];
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) paths.push(readlinkSync(`/proc/${pid}/fd/${fd}`));
    } catch {
      // the process ended while we looked
    }
  }
  return paths;
}

beforeAll(async () => {
  lab = loadLab();
  run = new Kvm2LabRun(lab);
  server = createServer((req, res) => {
    const image = images.get(req.url ?? '');
    if (!image) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-length': image.length }).end(req.method === 'HEAD' ? undefined : image);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const entries: Record<string, { url: string; sha256: string }> = {};
  for (const host of lab.hosts) {
    writeFileSync(join(host.rootPath, hostFileOf(host.name)), 'a host file no guest may read\n', { mode: 0o600 });
    const image = hostileImage(hostFileOf(host.name));
    images.set(`/${host.name}.qcow2`, image);
    entries[`hostile-${host.name}`] = { url: `${url}/${host.name}.qcow2`, sha256: createHash('sha256').update(image).digest('hex') };
  }
  provider = run.provider({ images: entries });
});

afterAll(async () => {
  await run.cleanUp();
  server.close();
  for (const host of lab.hosts) rmSync(join(host.rootPath, hostFileOf(host.name)), { force: true });
  rmSync(dir, { recursive: true, force: true });
});

describe('a base image whose qcow2 header names a host file', () => {
  it.each(['lab1', 'lab2'])('on %s: refused permanently naming the file; nothing cached, nothing defined, the file untouched', async (hostName) => {
    const host = lab.hosts.find((candidate) => candidate.name === hostName);
    if (!host) throw new Error(`the lab has no host ${hostName}`);
    const hostFile = hostFileOf(host.name);
    const before = statSync(join(host.rootPath, hostFile));
    const name = run.domainName(`hostile-${host.name}`);

    const error = await failureOf(
      provider.create({
        name,
        uid: `uid-${name}`,
        placement: { zone: host.name, machineType: 'small', image: `hostile-${host.name}` },
        cloudInit: '#cloud-config\n',
        port: 3128,
      }),
    );

    expect(errorClassOf(error)).toBe('permanent');
    expect(error?.message).toContain(`backing file "${hostFile}"`);
    expect(await run.baseVolumes(host.name)).toEqual([]);
    expect(await virsh(['list', '--all', '--name'], host.name)).not.toContain(name);
    const after = statSync(join(host.rootPath, hostFile));
    expect({ uid: after.uid, gid: after.gid, mode: after.mode }).toEqual({ uid: before.uid, gid: before.gid, mode: before.mode });
    expect(openFiles().filter((path) => path.startsWith(hostFile))).toEqual([]);
  });
});
