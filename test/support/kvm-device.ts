// Whether a machine (or a lab host) can run guests under KVM. Tests that expect a host to offer
// the kvm domain type derive it from here instead of assuming it: CI runs on machines without
// /dev/kvm, and lab2 never has one (its /dev is its own, by design).
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import type { LabHost } from '../lab/harness/lab';
import { requireTool } from './system-tool';

export interface KvmProbe {
  usable: boolean;
  /** why not, naming the device: for a test's failure message */
  reason: string;
}

// KVM_GET_API_VERSION (12 on every kernel since 2.6.22), then KVM_CREATE_VM: what QEMU's KVM
// accelerator does before libvirt lists the kvm domain type. Opening the device alone is not
// enough: a /dev/kvm that cannot create a VM (nested virtualisation off, a sandbox) leaves libvirt
// with software emulation. Node has no ioctl; python3 (python3-minimal, installed with the lab) has.
const probeScript = `import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CLOEXEC)
version = fcntl.ioctl(fd, 0xAE00)
if version != 12: sys.exit(f"KVM API version {version}, not 12")
os.close(fcntl.ioctl(fd, 0xAE01, 0))`;

/** Whether DEVICE is a /dev/kvm that can create a VM. */
export function probeKvmDevice(device = '/dev/kvm'): KvmProbe {
  let stats;
  try {
    stats = statSync(device);
  } catch {
    return { usable: false, reason: `${device} does not exist` };
  }
  if (!stats.isCharacterDevice()) return { usable: false, reason: `${device} is not a character device` };
  try {
    execFileSync(requireTool('python3', 'python3-minimal'), ['-c', probeScript, device], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 });
    return { usable: true, reason: '' };
  } catch (err) {
    const stderr = String((err as { stderr?: unknown }).stderr ?? '')
      .trim()
      .split('\n')
      .at(-1);
    return { usable: false, reason: `${device} cannot create a VM: ${stderr || (err as Error).message}` };
  }
}

/**
 * Whether lab HOST's libvirtd can offer kvm: a usable /dev/kvm as the host sees it (lab1 shares
 * this machine's /dev; lab2 has a /dev of its own without one).
 */
export function labHostKvm(host: LabHost): KvmProbe {
  return probeKvmDevice(`${host.rootPath}/dev/kvm`);
}
