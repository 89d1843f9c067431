// The providers config `npm run lab` serves the app with: the lab's own (.lab/providers.yaml, which
// the tests use as it is) plus the real guest image, so a Proxy made from the dashboard boots Debian
// and becomes Ready (Squid answers on 3128). Plain Node (run by run.sh, no build step):
// `node write-app-config.mjs GUEST_IMAGE_PATH` writes .lab/app-providers.yaml and prints its path.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

const labDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '.lab');
const imagePath = process.argv[2];
if (!imagePath) throw new Error('usage: node write-app-config.mjs GUEST_IMAGE_PATH');

// build.sh keeps the image's digest next to it.
const { sha256 } = JSON.parse(readFileSync(join(dirname(imagePath), 'build.json'), 'utf8'));
const lab = JSON.parse(readFileSync(join(labDir, 'lab.json'), 'utf8'));
const providers = parse(readFileSync(lab.providersConfig, 'utf8'));
for (const provider of providers) {
  // BIOS: under software emulation about one UEFI boot in 18 hangs in QEMU (test/lab/README.md).
  provider.kvm2.images.debian = { url: `${lab.imageServer.url}/images/guest.qcow2`, sha256, firmware: 'bios' };
  // What cloud-init (Python) and Squid start comfortably in; two vCPUs boot faster under emulation.
  provider.kvm2.machineTypes.guest = { vcpus: 2, memoryMiB: 1024 };
}

const path = join(labDir, 'app-providers.yaml');
const header = "# Providers config of `npm run lab` (test/lab/run.sh): the lab's, plus the real guest image `debian`.\n";
writeFileSync(`${path}.tmp`, header + stringify(providers));
renameSync(`${path}.tmp`, path);
console.log(path);
