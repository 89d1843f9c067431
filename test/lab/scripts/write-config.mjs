// Writes .lab/lab.json (read by test/lab/harness/lab.ts) and .lab/providers.yaml (the spec's
// providers config for the lab) from the values up.sh passes in the environment.
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
const hostOf = (name, netns, address, port) => ({ name, address: `${address}:${port}`, host: address, port: Number(port), netns });

const lab = {
  dir,
  sshKeyFile: join(dir, 'ssh', 'id_ed25519'),
  knownHostsFile: join(dir, 'ssh', 'known_hosts'),
  user: env('LAB_USER'),
  nonLibvirtUser: env('NOLV_USER'),
  socket: env('LIBVIRT_SOCKET'),
  hosts: [
    hostOf('lab1', env('NS_LAB1'), env('LAB1_ADDR'), env('LAB1_PORT')),
    hostOf('lab2', env('NS_LAB2'), env('LAB2_ADDR'), env('LAB2_PORT')),
  ],
  hypervisorNetns: env('NS_HV'),
  pool: { name: env('POOL_NAME'), path: join(env('POOL_DIR'), env('POOL_NAME')) },
  inactivePool: { name: env('INACTIVE_POOL_NAME'), path: join(env('POOL_DIR'), env('INACTIVE_POOL_NAME')) },
  bridge: env('BRIDGE'),
  bridgeAddress: env('BRIDGE_ADDR'),
  libvirtdPidFile: env('LIBVIRTD_PID'),
  imageServer: {
    url: env('IMAGE_SERVER_URL'),
    image: { path: imagePath, sha256: imageSha256, size: statSync(imagePath).size },
  },
  providersConfig: join(dir, 'providers.yaml'),
  logsDir: join(dir, 'logs'),
};

const hostYaml = (h) => `      - name: ${h.name}
        address: "${h.address}"
        user: ${lab.user}
        bridge: ${lab.bridge}
        pool: ${lab.pool.name}
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
writeAtomically(join(dir, 'lab.json'), `${JSON.stringify(lab, null, 2)}\n`);
