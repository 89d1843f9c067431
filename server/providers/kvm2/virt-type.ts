// The virtualisation type a host's domains are defined with. A configured `kvm` or `qemu` is used
// as it is; `detect` reads the host's domain capabilities once per connection and takes `kvm` only
// when libvirt offers it (it names kvm as the default type only when /dev/kvm is usable by its
// QEMU), `qemu` (software emulation) otherwise. A host that offers kvm but cannot start KVM guests
// (nested KVM failing at start, as in the lab) must be configured `virtType: qemu`.
import type { VirtType } from '@/server/providers/config-kvm2';
import type { Logger } from '@/server/telemetry/logger';
import type { Kvm2Host } from './kvm2';
import type { LibvirtAPI } from './libvirt-api';
import { childElement, parseXml, textOf } from './xml-codec';

export interface ResolveVirtTypeOptions {
  host: Kvm2Host;
  /** the provider's detections (Kvm2Context.virtTypes) */
  detected: VirtTypeDetections;
  /** Should carry `host`; the chosen type is logged once per connection. */
  logger: Logger;
  signal?: AbortSignal;
}

/** Detected types keyed by the connection's API object, so a redialled connection detects again. */
export type VirtTypeDetections = WeakMap<LibvirtAPI, Promise<VirtType>>;

/** The `<domain>` libvirt reports as its default type in a domain capabilities document. */
export function offeredVirtType(domainCapabilities: string): VirtType {
  const document = parseXml(domainCapabilities, 'domain capabilities');
  const offered = textOf(childElement(childElement(document, 'domainCapabilities'), 'domain'));
  return offered === 'kvm' ? 'kvm' : 'qemu';
}

/** The host's virt type; for `detect`, asks libvirt at most once per connection. */
export function resolveVirtType(api: LibvirtAPI, options: ResolveVirtTypeOptions): Promise<VirtType> {
  const { host, logger, signal, detected } = options;
  if (host.virtType !== 'detect') return Promise.resolve(host.virtType);
  let pending = detected.get(api);
  if (!pending) {
    pending = api.connectGetDomainCapabilities({ signal }).then((document) => {
      const virtType = offeredVirtType(document);
      logger.info({ virtType }, `kvm2 virt type detected: ${virtType === 'kvm' ? 'libvirt offers kvm' : 'no kvm offered, using qemu (software emulation)'}`);
      return virtType;
    });
    detected.set(api, pending);
    // A failed read is not remembered: the next Create on this connection asks again.
    pending.catch(() => detected.delete(api));
  }
  return pending;
}
