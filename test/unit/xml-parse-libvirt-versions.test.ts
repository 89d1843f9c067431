// The live domain XML of the same UEFI domain as libvirt 9.0 (lab1, Debian 12) and libvirt 11.3
// (lab2, Debian 13) answer it, trimmed to the parts that differ (from `virsh dumpxml` on the lab):
// 11.3 keeps `firmware='efi'` on <os>, adds the `enrolled-keys` feature, `format`/`templateFormat`
// on loader and nvram, a newer machine type and an implicit iTCO watchdog. The parser reads both
// the same way.
import { describe, expect, it } from 'vitest';
import { parseDomainXML } from '@/server/providers/kvm2/xml-parse';

const libvirt9 = `<domain type='qemu' id='1'>
  <name>wt14probe</name>
  <os>
    <type arch='x86_64' machine='pc-q35-7.2'>hvm</type>
    <firmware>
      <feature enabled='no' name='secure-boot'/>
    </firmware>
    <loader readonly='yes' type='pflash'>/usr/share/OVMF/OVMF_CODE_4M.fd</loader>
    <nvram template='/usr/share/OVMF/OVMF_VARS_4M.fd'>/var/lib/libvirt/qemu/nvram/wt14probe_VARS.fd</nvram>
    <boot dev='hd'/>
  </os>
  <cpu mode='maximum' check='none'/>
  <devices>
    <interface type='bridge'><mac address='52:54:00:6f:4a:85'/><source bridge='kvm2lab-br0'/><model type='virtio'/></interface>
  </devices>
</domain>`;

const libvirt11 = `<domain type='qemu' id='1'>
  <name>wt14probe</name>
  <os firmware='efi'>
    <type arch='x86_64' machine='pc-q35-10.0'>hvm</type>
    <firmware>
      <feature enabled='no' name='enrolled-keys'/>
      <feature enabled='no' name='secure-boot'/>
    </firmware>
    <loader readonly='yes' type='pflash' format='raw'>/usr/share/OVMF/OVMF_CODE_4M.fd</loader>
    <nvram template='/usr/share/OVMF/OVMF_VARS_4M.fd' templateFormat='raw' format='raw'>/var/lib/libvirt/qemu/nvram/wt14probe_VARS.fd</nvram>
    <boot dev='hd'/>
  </os>
  <cpu mode='maximum' check='none'/>
  <devices>
    <interface type='bridge'><mac address='52:54:00:c2:e3:e6'/><source bridge='kvm2lab-br0'/><model type='virtio'/></interface>
    <watchdog model='itco' action='reset'><alias name='watchdog0'/></watchdog>
  </devices>
</domain>`;

describe('domain XML of libvirt 9.0 and 11.3', () => {
  it.each([
    ['9.0', libvirt9, 'pc-q35-7.2'],
    ['11.3', libvirt11, 'pc-q35-10.0'],
  ])('reads libvirt %s as UEFI without secure boot on a bridge', (_version, xml, machine) => {
    const domain = parseDomainXML(xml);
    expect(domain).toMatchObject({ name: 'wt14probe', virtType: 'qemu', firmware: 'uefi', secureBoot: false, cpuMode: 'maximum', machine });
    expect(domain.interfaces).toEqual([expect.objectContaining({ type: 'bridge', bridge: 'kvm2lab-br0', model: 'virtio' })]);
  });
});
