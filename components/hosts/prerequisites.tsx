// The empty state of a dashboard without hosts: what each hypervisor needs (the spec's *Hypervisor
// prerequisites*) and where the providers config lives, with a sample entry to paste.
import type { ReactNode } from 'react';

const steps: Array<{ title: string; body: ReactNode }> = [
  {
    title: 'libvirt and KVM',
    body: (
      <>
        libvirtd running and /dev/kvm present. Hosts without working KVM can run guests under emulation with <code>virtType: qemu</code>.
      </>
    ),
  },
  {
    title: 'An SSH user in the libvirt group',
    body: (
      <>
        This server logs in with a private key and opens /var/run/libvirt/libvirt-sock as <code>qemu:///system</code>; nothing else on the host is touched.
      </>
    ),
  },
  {
    title: 'A bridge to a network with DHCP',
    body: (
      <>
        For example <code>br0</code> bridged onto the LAN. Each VM gets one NIC on it; this server and your crawlers must route to those addresses.
      </>
    ),
  },
  {
    title: 'A running storage pool',
    body: (
      <>
        Default <code>default</code>, with room for one base image per image and the per-VM overlays. Start it with <code>virsh pool-start</code> and{' '}
        <code>virsh pool-autostart</code>.
      </>
    ),
  },
  {
    title: 'UEFI firmware for guests',
    body: (
      <>
        The <code>ovmf</code> package (Debian/Ubuntu) or <code>edk2-ovmf</code> (Fedora/RHEL).
      </>
    ),
  },
  {
    title: 'Outbound internet from the VMs',
    body: <>The guest agent is installed from the distro mirrors on first boot; it is how the VM&apos;s address is learned.</>,
  },
];

/** The entry to paste into the providers config; config-validation.test.ts checks that it validates. */
export const providersConfigSample = `- name: kvm2-home
  type: kvm2
  kvm2:
    sshKeyFile: /etc/kvm2-proxies/id_ed25519
    knownHostsFile: /etc/kvm2-proxies/known_hosts
    images:
      debian-13:
        url: https://cloud.debian.org/images/cloud/trixie/latest/debian-13-generic-amd64.qcow2
    machineTypes:
      small: {vcpus: 1, memoryMiB: 1024}
    hosts:
      - name: beelink
        address: beelink.example.net:22
        user: novakj
        bridge: br0`;

export function Prerequisites({ configPath }: { configPath?: string }) {
  return (
    <div className="space-y-5" data-testid="prerequisites">
      <div>
        <h3 className="font-semibold text-slate-900">No hosts are configured yet</h3>
        <p className="mt-1 text-sm text-slate-700">
          Prepare each hypervisor once, then add it to the providers config. The server picks up a changed config file on its own.
        </p>
      </div>
      <ol className="list-decimal space-y-2 pl-5 text-sm text-slate-800">
        {steps.map((step) => (
          <li key={step.title}>
            <span className="font-medium">{step.title}.</span> {step.body}
          </li>
        ))}
      </ol>
      <div className="text-sm text-slate-800">
        <p className="font-medium">Providers config file</p>
        {configPath ? (
          <p className="mt-1">
            This server reads <code className="break-all rounded bg-slate-100 px-1">{configPath}</code>.
          </p>
        ) : (
          <p className="mt-1">
            None is set: start the server with <code className="rounded bg-slate-100 px-1">PROVIDERS_CONFIG=/path/to/providers.yaml</code>.
          </p>
        )}
        <pre
          tabIndex={0}
          aria-label="Sample providers config entry"
          className="mt-2 overflow-x-auto rounded-md bg-slate-900 p-3 text-xs text-slate-100 focus-visible:outline-2 focus-visible:outline-blue-600"
        >
          {providersConfigSample}
        </pre>
      </div>
      <div className="text-sm text-slate-800">
        <p className="font-medium">Check from this server before adding a host</p>
        <pre
          tabIndex={0}
          aria-label="Commands to check a host"
          className="mt-2 overflow-x-auto rounded-md bg-slate-900 p-3 text-xs text-slate-100 focus-visible:outline-2 focus-visible:outline-blue-600"
        >{`ssh user@host virsh -c qemu:///system list --all
ssh user@host virsh -c qemu:///system pool-info default
ssh user@host ip link show br0`}</pre>
      </div>
    </div>
  );
}
