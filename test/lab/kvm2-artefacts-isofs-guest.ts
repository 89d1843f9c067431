// Linux's own isofs, for reading seed ISOs exactly as cloud-init's NoCloud reader does. This
// machine's kernel has no iso9660 driver, so a tiny guest does it: Debian's cloud kernel plus a
// busybox initramfs, booted under QEMU (software emulation), mounts each seed attached as a virtio
// disk and prints what it sees on the serial console. Kernel and busybox come from Debian's
// packages (apt's cache, else `apt-get install --download-only`); nothing is installed.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const aptArchives = '/var/cache/apt/archives';
const kernelDeb = /^linux-image-\d[^_]*-cloud-amd64_.*_amd64\.deb$/;
const busyboxDeb = /^busybox_.*_amd64\.deb$/;

// Loaded in dependency order, read from each module's own `depends=` (it changes between kernel
// point releases: 6.1.192's virtio needs virtio_ring, 6.1.187's did not).
const modules = [
  'drivers/virtio/virtio.ko',
  'drivers/virtio/virtio_ring.ko',
  'drivers/virtio/virtio_pci_legacy_dev.ko',
  'drivers/virtio/virtio_pci_modern_dev.ko',
  'drivers/virtio/virtio_pci.ko',
  'drivers/block/virtio_blk.ko',
  'drivers/cdrom/cdrom.ko',
  'fs/isofs/isofs.ko',
];

function findDeb(pattern: RegExp): string | undefined {
  if (!existsSync(aptArchives)) return undefined;
  const found = readdirSync(aptArchives)
    .filter((name) => pattern.test(name))
    .sort();
  const last = found[found.length - 1];
  return last ? join(aptArchives, last) : undefined;
}

function debs(): { kernel: string; busybox: string } {
  let kernel = findDeb(kernelDeb);
  let busybox = findDeb(busyboxDeb);
  if (!kernel || !busybox) {
    execFileSync('apt-get', ['install', '--download-only', '-y', '-q', '--no-install-recommends', 'linux-image-cloud-amd64', 'busybox'], {
      stdio: 'pipe',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    kernel = findDeb(kernelDeb);
    busybox = findDeb(busyboxDeb);
  }
  if (!kernel || !busybox) throw new Error(`no cloud kernel or busybox package in ${aptArchives}`);
  return { kernel, busybox };
}

/** A newc cpio archive (what the kernel unpacks as initramfs) of regular files and directories. */
function cpioNewc(entries: { path: string; mode: number; data?: Uint8Array }[]): Buffer {
  const parts: Buffer[] = [];
  const pad4 = (length: number) => Buffer.alloc((4 - (length % 4)) % 4);
  const hex = (value: number) => value.toString(16).padStart(8, '0');
  let inode = 1;
  const push = (path: string, mode: number, data: Uint8Array) => {
    const name = Buffer.from(`${path}\0`);
    const fields = [inode++, mode, 0, 0, 1, 0, data.length, 0, 0, 0, 0, name.length, 0];
    const header = Buffer.from(`070701${fields.map(hex).join('')}`, 'ascii');
    parts.push(header, name, pad4(header.length + name.length), Buffer.from(data), pad4(data.length));
  };
  for (const entry of entries) push(entry.path, entry.mode, entry.data ?? new Uint8Array(0));
  push('TRAILER!!!', 0, new Uint8Array(0));
  return Buffer.concat(parts);
}

const initScript = (moduleNames: string[]) => `#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in ${moduleNames.join(' ')}; do insmod /modules/$m.ko || echo "INSMOD-FAILED $m"; done
for i in $(seq 1 100); do [ -b /dev/vda ] && break; sleep 0.1; done
echo KVM2-GUEST-BEGIN
for dev in /sys/block/vd*; do
  name=\${dev##*/}
  mkdir -p /mnt/$name
  echo "DEVICE $name"
  blkid /dev/$name | sed 's/^/BLKID /'
  if mount -t iso9660 -o ro /dev/$name /mnt/$name; then
    ls -1a /mnt/$name | sed 's/^/ENTRY /'
    for f in /mnt/$name/*; do
      [ -f "$f" ] && echo "FILE \${f##*/} $(stat -c '%s %a' "$f") $(sha256sum < "$f" | cut -d' ' -f1)"
    done
    umount /mnt/$name
  else
    echo "MOUNT-FAILED $name"
  fi
done
dmesg | grep -i -E 'iso ?9660|rock|joliet' | sed 's/^/DMESG /'
echo KVM2-GUEST-END
poweroff -f
`;

const moduleName = (kernelModule: string) => kernelModule.split('/').pop()?.replace(/\.ko$/, '') ?? kernelModule;

/** The modules' names, each after the modules its `depends=` (from .modinfo) names. */
function loadOrder(moduleFiles: Map<string, Buffer>): string[] {
  const order: string[] = [];
  const visit = (name: string, path: string[]) => {
    if (order.includes(name)) return;
    const file = moduleFiles.get(name);
    if (!file) throw new Error(`${path.join(' -> ')} needs module ${name}, which the isofs guest does not carry`);
    if (path.includes(name)) throw new Error(`module dependency loop: ${[...path, name].join(' -> ')}`);
    const depends = /depends=([^\0]*)\0/.exec(file.toString('latin1'))?.[1] ?? '';
    for (const dependency of depends.split(',').filter(Boolean)) visit(dependency.replace(/-/g, '_'), [...path, name]);
    order.push(name);
  };
  for (const name of moduleFiles.keys()) visit(name, []);
  return order;
}

function sharedLibraries(binary: string): string[] {
  const output = execFileSync('ldd', [binary], { encoding: 'utf8' });
  return [...output.matchAll(/(\/\S+)/g)].map((match) => match[1] as string);
}

export interface GuestKit {
  kernel: string;
  initrd: string;
}

/** Builds (once, cached under the temp dir) the kernel and initramfs of the isofs guest. */
export function prepareIsofsGuest(): GuestKit {
  const { kernel: kernelPackage, busybox: busyboxPackage } = debs();
  // Keyed by the kernel package and this file, so a change to how the initramfs is built rebuilds it.
  const builder = createHash('sha256')
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .digest('hex')
    .slice(0, 12);
  const cache = join(
    tmpdir(),
    `kvm2-isofs-guest-${kernelPackage
      .split('/')
      .pop()
      ?.replace(/\.deb$/, '')}-${builder}`,
  );
  const kit = { kernel: join(cache, 'vmlinuz'), initrd: join(cache, 'initrd.cpio.gz') };
  if (existsSync(kit.kernel) && existsSync(kit.initrd)) return kit;

  const staging = join(cache, 'staging');
  rmSync(cache, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  execFileSync('dpkg-deb', ['-x', kernelPackage, join(staging, 'kernel')]);
  execFileSync('dpkg-deb', ['-x', busyboxPackage, join(staging, 'busybox')]);

  const bootDir = join(staging, 'kernel', 'boot');
  const vmlinuz = readdirSync(bootDir).find((name) => name.startsWith('vmlinuz-'));
  if (!vmlinuz) throw new Error(`no vmlinuz in ${kernelPackage}`);
  const moduleRoot = join(staging, 'kernel', 'lib', 'modules');
  const [release] = readdirSync(moduleRoot);
  if (!release) throw new Error(`no modules in ${kernelPackage}`);

  const busybox = join(staging, 'busybox', 'bin', 'busybox');
  const entries: { path: string; mode: number; data?: Uint8Array }[] = [];
  const directories = new Set<string>();
  const addDirectory = (path: string) => {
    const parts = path.split('/');
    for (let depth = 1; depth <= parts.length; depth += 1) {
      const prefix = parts.slice(0, depth).join('/');
      if (!directories.has(prefix)) {
        directories.add(prefix);
        entries.push({ path: prefix, mode: 0o040755 });
      }
    }
  };
  const addFile = (path: string, data: Uint8Array, mode = 0o100755) => {
    addDirectory(dirname(path));
    entries.push({ path, mode, data });
  };
  for (const path of ['proc', 'sys', 'dev', 'mnt', 'bin']) addDirectory(path);
  addFile('bin/busybox', readFileSync(busybox));
  for (const library of sharedLibraries(busybox)) addFile(library.slice(1), readFileSync(realpathSync(library)));
  const moduleFiles = new Map(modules.map((kernelModule) => [moduleName(kernelModule), readFileSync(join(moduleRoot, release, 'kernel', kernelModule))]));
  const order = loadOrder(moduleFiles);
  for (const name of order) addFile(`modules/${name}.ko`, moduleFiles.get(name) as Buffer, 0o100644);
  addFile('init', Buffer.from(initScript(order)));
  writeFileSync(kit.initrd, gzipSync(cpioNewc(entries)));
  copyFileSync(join(bootDir, vmlinuz), kit.kernel);
  rmSync(staging, { recursive: true, force: true });
  return kit;
}

export interface GuestFile {
  name: string;
  size: number;
  mode: string;
  sha256: string;
}

export interface GuestDevice {
  device: string;
  blkid: string;
  mounted: boolean;
  entries: string[];
  files: GuestFile[];
}

export interface GuestReport {
  devices: GuestDevice[];
  dmesg: string[];
  insmodFailures: string[];
}

function parseReport(console: string): GuestReport {
  const begin = console.indexOf('KVM2-GUEST-BEGIN');
  const end = console.indexOf('KVM2-GUEST-END');
  if (begin < 0 || end < 0) throw new Error(`the isofs guest did not report; console:\n${console.slice(-4000)}`);
  const report: GuestReport = { devices: [], dmesg: [], insmodFailures: [] };
  for (const failure of console.slice(0, begin).matchAll(/INSMOD-FAILED (\S+)/g)) report.insmodFailures.push(failure[1] as string);
  let current: GuestDevice | undefined;
  for (const line of console.slice(begin, end).split(/\r?\n/)) {
    const [tag, ...rest] = line.split(' ');
    const value = rest.join(' ');
    if (tag === 'DEVICE') {
      current = { device: value, blkid: '', mounted: true, entries: [], files: [] };
      report.devices.push(current);
    } else if (tag === 'BLKID' && current) current.blkid = value;
    else if (tag === 'MOUNT-FAILED' && current) current.mounted = false;
    else if (tag === 'ENTRY' && current) current.entries.push(value);
    else if (tag === 'FILE' && current) {
      const [name = '', size = '0', mode = '', sha256 = ''] = rest;
      current.files.push({ name, size: Number(size), mode, sha256 });
    } else if (tag === 'DMESG') report.dmesg.push(value);
  }
  return report;
}

/**
 * Boots the guest with each image attached as a virtio disk (vda, vdb, ... in order) and returns
 * what Linux's isofs showed for each.
 */
export function readWithLinuxIsofs(kit: GuestKit, images: string[], timeoutMs = 90_000): Promise<GuestReport> {
  const drives = images.flatMap((image) => ['-drive', `file=${image},format=raw,if=virtio,readonly=on`]);
  const args = [
    '-machine',
    'q35',
    '-accel',
    'tcg',
    '-m',
    '256',
    '-nodefaults',
    '-display',
    'none',
    '-no-reboot',
    '-serial',
    'stdio',
    '-kernel',
    kit.kernel,
    '-initrd',
    kit.initrd,
    '-append',
    'console=ttyS0 panic=-1 loglevel=4',
    ...drives,
  ];
  return new Promise((resolve, reject) => {
    const qemu = spawn('qemu-system-x86_64', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    qemu.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    qemu.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const timer = setTimeout(() => qemu.kill('SIGKILL'), timeoutMs);
    qemu.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    qemu.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(parseReport(output));
      } catch (err) {
        reject(err as Error);
      }
    });
  });
}
