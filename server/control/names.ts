// Deterministic names and the spec hash. The instance name depends only on the Proxy's name, so a
// repeated Create after a crash finds (and the provider adopts) the instance it made before. The
// spec hash covers everything that shapes the instance; a change to any of it replaces the VM.
import { createHash } from 'node:crypto';
import { cloudInitBytes, type ProxySpec } from '@/lib/proxy-spec';

const sha256Hex = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');

/** `proxy-` plus the first 16 hex characters of sha256(name) (the store indexes Proxies by it). */
export { instanceName } from '@/server/store/instance-name';

/**
 * sha256 over the fields that define the instance: provider, the placement values (not what the
 * config maps them to), the cloud-init bytes and port for a Managed proxy; address and port for a Static one.
 * Labels are left out: relabelling must not rebuild a VM.
 */
export function specHash(spec: ProxySpec): string {
  const shape =
    spec.mode === 'Managed'
      ? {
          mode: spec.mode,
          provider: spec.provider,
          placement: {
            zone: spec.placement.zone ?? null,
            region: spec.placement.region ?? null,
            machineType: spec.placement.machineType,
            image: spec.placement.image,
          },
          // the bytes, whichever field carried them (text hashes as its UTF-8, as it always has)
          cloudInit: sha256Hex(cloudInitBytes(spec)),
          port: spec.port,
        }
      : { mode: spec.mode, address: spec.address, port: spec.port };
  return sha256Hex(JSON.stringify(shape)).slice(0, 32);
}
