// The health check's virtualisation facts, so software emulation is never chosen silently:
// `virtType` (what new Proxies on the host are defined with: the configured type, or for `detect`
// what libvirt offers) and `kvm` (`offered` or `not offered`). A host that offered KVM at an earlier
// check and no longer does (the kvm module unloaded, /dev/kvm's permissions changed) carries the
// condition `kvmLostAt` (when it was first seen missing) in every check until KVM is back, read
// forward from the targets as last recorded, so a restart keeps it; its first sighting logs a
// warning. One more RPC per check (ConnectGetDomainCapabilities); its failure costs only these facts.
import type { Logger } from '@/server/telemetry/logger';
import type { Kvm2Host } from './kvm2';
import type { LibvirtAPI } from './libvirt-api';
import { offeredVirtType } from './virt-type';
import { errorMessage } from '@/lib/error-message';

export interface VirtTypeDetailsOptions {
  api: LibvirtAPI;
  host: Kvm2Host;
  /** this host's details as last recorded, if any */
  previous?: Record<string, string>;
  logger: Logger;
  now: () => Date;
  signal?: AbortSignal;
}

export async function addVirtTypeDetails(details: Record<string, string>, options: VirtTypeDetailsOptions): Promise<void> {
  const { api, host, previous, logger, signal } = options;
  let offered;
  try {
    offered = offeredVirtType(await api.connectGetDomainCapabilities({ signal }));
  } catch (err) {
    // The round's timeout still reads as Timeout; anything else leaves the facts out.
    if (signal?.aborted) throw err;
    logger.debug({ host: host.name, error: errorMessage(err) }, 'kvm2 host virt type unknown');
    return;
  }
  details.virtType = host.virtType === 'detect' ? offered : host.virtType;
  details.kvm = offered === 'kvm' ? 'offered' : 'not offered';
  if (offered === 'kvm') return;
  const lostAt = previous?.kvmLostAt ?? (previous?.kvm === 'offered' ? options.now().toISOString() : undefined);
  if (lostAt === undefined) return;
  details.kvmLostAt = lostAt;
  if (previous?.kvmLostAt === undefined) {
    const consequence =
      host.virtType === 'kvm'
        ? 'Creates there fail until it is back (virtType: kvm)'
        : 'new Proxies there boot under software emulation (qemu), many times slower';
    logger.warn({ host: host.name, virtType: details.virtType }, `kvm2 host no longer offers KVM: ${consequence}`);
  }
}
