// The virtualisation type a host's domains are defined with. `qemu` is used as configured; `detect`
// reads the host's domain capabilities once per connection and takes `kvm` only when libvirt
// offers it (it names kvm as the default type only when /dev/kvm is usable by its QEMU), `qemu`
// (software emulation) otherwise, and logs the choice. An explicit `kvm` is checked the same way
// and never falls back: a host that offers no KVM fails the Create permanently, saying what to do,
// rather than defining a domain libvirt would refuse (or, were it `detect`, boot it many times
// slower without a word). A host that offers kvm but cannot start KVM guests (nested KVM failing at
// start, as on some lab machines) must be configured `virtType: qemu`.
import type { VirtType } from '@/server/providers/config-kvm2';
import { ErrPermanent } from '@/server/providers/errors';
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

/** Why an explicit `virtType: kvm` cannot be honoured on `host`, and what to do. */
export function kvmNotOfferedMessage(host: string): string {
  return (
    `host ${JSON.stringify(host)} is configured with virtType kvm, but its libvirt offers no KVM (the kvm module not loaded, /dev/kvm missing or not usable by QEMU): ` +
    'fix KVM on the host, or set virtType: qemu (software emulation, many times slower) or remove it to detect'
  );
}

/** What libvirt offers on the connection, read at most once per connection (a failed read is not kept). */
function offered(api: LibvirtAPI, options: ResolveVirtTypeOptions): Promise<VirtType> {
  const { host, logger, signal, detected } = options;
  let pending = detected.get(api);
  if (!pending) {
    pending = api.connectGetDomainCapabilities({ signal }).then((document) => {
      const virtType = offeredVirtType(document);
      if (host.virtType === 'detect') {
        logger.info({ virtType }, `kvm2 virt type detected: ${virtType === 'kvm' ? 'libvirt offers kvm' : 'no kvm offered, using qemu (software emulation)'}`);
      }
      return virtType;
    });
    detected.set(api, pending);
    // A failed read is not remembered: the next Create on this connection asks again.
    pending.catch(() => detected.delete(api));
  }
  return pending;
}

/** The host's virt type: `qemu` as configured; `detect` and `kvm` ask libvirt at most once per connection. */
export async function resolveVirtType(api: LibvirtAPI, options: ResolveVirtTypeOptions): Promise<VirtType> {
  const { host } = options;
  if (host.virtType === 'qemu') return 'qemu';
  const virtType = await offered(api, options);
  if (host.virtType === 'kvm' && virtType !== 'kvm') throw new ErrPermanent(kvmNotOfferedMessage(host.name));
  return virtType;
}
