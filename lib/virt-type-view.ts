// What a host's health details say about virtualisation, in the dashboard's words: the type new
// Proxies get there (kvm2's `virtType` and `kvm` details) and a warning when that is slower than
// the admin would expect or cannot work: KVM lost since an earlier check (`kvmLostAt`), or an
// explicit `virtType: kvm` on a host that offers none. Pure, so the host card and tests share it.

export interface VirtTypeView {
  /** e.g. "KVM" or "QEMU (software emulation)"; undefined when the check did not learn it */
  label: string | undefined;
  warning?: { title: string; text: string };
}

const labels: Record<string, string> = { kvm: 'KVM', qemu: 'QEMU (software emulation)' };
const fixKvm = 'Check on the host that the kvm module is loaded (lsmod | grep kvm) and that /dev/kvm exists and is usable by QEMU (group kvm, mode 0660).';

export function describeVirtType(details: Record<string, string>): VirtTypeView {
  const { virtType, kvm, kvmLostAt } = details;
  const label = virtType === undefined ? undefined : (labels[virtType] ?? virtType);
  if (virtType === 'kvm' && kvm === 'not offered') {
    return {
      label,
      warning: {
        title: 'KVM configured but not offered',
        text: `This host is configured with virtType: kvm, but its libvirt offers no KVM: creating a Proxy here fails until KVM works again. ${fixKvm}`,
      },
    };
  }
  if (kvmLostAt !== undefined) {
    return {
      label,
      warning: {
        title: 'KVM no longer offered',
        text: `This host offered KVM at an earlier check and has not since ${kvmLostAt}: new Proxies here boot under software emulation, many times slower. ${fixKvm}`,
      },
    };
  }
  return { label };
}
