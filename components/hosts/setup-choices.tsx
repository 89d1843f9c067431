// The Add-host wizard's choices once the host answered: the storage pool, the bridge (a list of
// what the host has, or free text when it listed none) and the virtualisation type.
import { Field, controlClass } from '@/components/ui/field';
import type { ResourcesStep } from './setup-queries';

export interface HostChoice {
  pool: string;
  bridge: string;
  virtType: string;
}

export function HostChoices({ resources, choice, onChange }: { resources: ResourcesStep; choice: HostChoice; onChange: (choice: HostChoice) => void }) {
  return (
    <div className="mt-4 grid gap-3 sm:grid-cols-3">
      <Field id="setup-pool" label="Storage pool" hint="Where base images, overlays and seeds go.">
        {(aria) => (
          <select {...aria} className={controlClass} value={choice.pool} onChange={(event) => onChange({ ...choice, pool: event.target.value })}>
            <option value="">Choose a pool</option>
            {resources.pools?.map((pool) => (
              <option key={pool.name} value={pool.name} disabled={pool.state !== 'running'}>
                {pool.name} ({pool.state}
                {pool.availableGiB !== undefined ? `, ${pool.availableGiB} GiB free` : ''})
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field id="setup-bridge" label="Bridge" hint={resources.notes?.join(' ') || 'The VMs’ NIC joins it; it needs DHCP.'}>
        {(aria) =>
          resources.bridges && resources.bridges.length > 0 ? (
            <select {...aria} className={controlClass} value={choice.bridge} onChange={(event) => onChange({ ...choice, bridge: event.target.value })}>
              <option value="">Choose a bridge</option>
              {resources.bridges.map((bridge) => (
                <option key={bridge.name} value={bridge.name}>
                  {bridge.name} ({bridge.source === 'network' ? `libvirt network ${bridge.network}` : 'host bridge'})
                </option>
              ))}
            </select>
          ) : (
            <input {...aria} className={controlClass} value={choice.bridge} onChange={(event) => onChange({ ...choice, bridge: event.target.value })} />
          )
        }
      </Field>
      <Field id="setup-virt-type" label="Virtualisation" hint="Detected from libvirt; choose qemu for hosts where KVM guests cannot start.">
        {(aria) => (
          <select {...aria} className={controlClass} value={choice.virtType} onChange={(event) => onChange({ ...choice, virtType: event.target.value })}>
            <option value="kvm">kvm (hardware)</option>
            <option value="qemu">qemu (software emulation)</option>
          </select>
        )}
      </Field>
    </div>
  );
}
