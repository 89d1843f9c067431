// Writes .lab/lab.json (read by test/lab/harness/lab.ts), .lab/guest.json (test/guest) and
// .lab/providers.yaml (the spec's providers config for the lab) from the values up.sh passes in the
// environment. The top-level fields of lab.json that name one libvirtd (pool, socket,
// hypervisorNetns, libvirtdPidFile, bridgeAddress) are lab1's, as when the lab had one hypervisor;
// hosts[] carries each host's own.
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`write-config: ${name} is not set`);
  return value;
};

const dir = env('LAB_DIR');
const imagePath = join(dir, 'images', 'lab.qcow2');
const imageSha256 = createHash('sha256').update(readFileSync(imagePath)).digest('hex');

function hostOf(name) {
  const v = (field) => env(`${name.toUpperCase()}_${field}`);
  const initPid = readFileSync(v('INIT_PID_FILE'), 'utf8').trim();
  // What the host sees as / is reachable from the root namespace here (its mount namespace's root).
  const rootPath = `/proc/${initPid}/root`;
  const poolDir = name === 'lab1' ? env('POOL_DIR') : env('HOST_POOL_DIR');
  const pool = (poolName) => ({ name: poolName, path: join(poolDir, poolName), pathFromRoot: join(rootPath, poolDir, poolName) });
  return {
    name,
    address: `${v('ADDR')}:${v('PORT')}`,
    host: v('ADDR'),
    port: Number(v('PORT')),
    netns: v('NETNS'),
    hostname: v('HOSTNAME'), // its own UTS namespace's: what ConnectGetHostname answers
    libvirtVersion: v('LIBVIRT_VERSION'),
    initPidFile: v('INIT_PID_FILE'),
    rootPath,
    libvirtSocketFromRoot: `${rootPath}/run/libvirt/libvirt-sock`,
    pool: pool(env('POOL_NAME')),
    inactivePool: pool(env('INACTIVE_POOL_NAME')),
    bridgeAddress: v('BRIDGE_ADDR'),
    vmNetwork: v('VM_NET'),
    dhcpLeasesFromRoot: `${rootPath}${env('HOST_RUN')}/dnsmasq.leases`,
    logsDir: join(dir, 'hosts', name, 'log'),
  };
}

const hosts = [hostOf('lab1'), hostOf('lab2')];
const [lab1] = hosts;
const lab = {
  dir,
  sshKeyFile: join(dir, 'ssh', 'id_ed25519'),
  knownHostsFile: join(dir, 'ssh', 'known_hosts'),
  user: env('LAB_USER'),
  nonLibvirtUser: env('NOLV_USER'),
  socket: env('LIBVIRT_SOCKET'),
  hosts,
  hypervisorNetns: lab1.netns,
  pool: { name: lab1.pool.name, path: lab1.pool.path },
  inactivePool: { name: lab1.inactivePool.name, path: lab1.inactivePool.path },
  bridge: env('BRIDGE'),
  bridgeAddress: lab1.bridgeAddress,
  // The process whose life is lab1's: its namespace init (libvirtd's own pid is the host's).
  libvirtdPidFile: lab1.initPidFile,
  imageServer: {
    url: env('IMAGE_SERVER_URL'),
    image: { path: imagePath, sha256: imageSha256, size: statSync(imagePath).size },
  },
  providersConfig: join(dir, 'providers.yaml'),
  logsDir: join(dir, 'logs'),
  // the lab's PostgreSQL (test/lab/scripts/postgres.sh), for the replica tests
  postgresUrl: env('POSTGRES_URL'),
};

const guest = {
  vmNetwork: lab1.vmNetwork,
  vmGateway: lab1.bridgeAddress.split('/')[0],
  rootAddress: env('VM_LINK_ROOT_IP'),
  imageServerVmUrl: env('IMAGE_SERVER_VM_URL'),
  guestImageBuilder: join(env('LAB_SRC'), 'guest-image', 'build.sh'),
  hosts: Object.fromEntries(hosts.map((h) => [h.name, { vmNetwork: h.vmNetwork, vmGateway: h.bridgeAddress.split('/')[0], dhcpLeases: h.dhcpLeasesFromRoot }])),
};

const hostYaml = (h) => `      - name: ${h.name}
        address: "${h.address}"
        user: ${lab.user}
        bridge: ${lab.bridge}
        pool: ${h.pool.name}
        virtType: qemu
`;
const providersYaml = `# Providers config for the kvm2 lab, written by test/lab/up.sh (spec format, see README.md).
- name: lab
  type: kvm2
  kvm2:
    sshKeyFile: ${lab.sshKeyFile}
    knownHostsFile: ${lab.knownHostsFile}
    images:
      lab:
        url: ${lab.imageServer.url}/images/lab.qcow2
        sha256: ${imageSha256}
    machineTypes:
      small: {vcpus: 1, memoryMiB: 256}
    hosts:
${lab.hosts.map(hostYaml).join('')}`;

// Write-then-rename: readers waiting for lab.json never see a half-written file.
function writeAtomically(path, text) {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}
writeAtomically(lab.providersConfig, providersYaml);
writeAtomically(join(dir, 'guest.json'), `${JSON.stringify(guest, null, 2)}\n`);
writeAtomically(join(dir, 'lab.json'), `${JSON.stringify(lab, null, 2)}\n`);
