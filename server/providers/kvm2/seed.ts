// The NoCloud seed: an ISO 9660 volume labelled `cidata` with `user-data` (the Proxy's cloudInit,
// byte for byte, never parsed), `meta-data` and `vendor-data` (the guest-agent bootstrap and/or
// the admin's vendorData). Built entirely in memory: nothing is staged on disk.
import { createHash } from 'node:crypto';
import { ErrPermanent } from '@/server/providers/errors';
import { writeIso9660 } from './iso/iso9660';

export const seedVolumeLabel = 'cidata';

/**
 * Vendor-data script that installs and starts qemu-guest-agent, the operator's main source of a
 * VM's address. A script rather than a cloud-config on purpose: cloud-init merges a vendor-data
 * cloud-config under the user-data and keeps the user-data's value for every top-level key both
 * define (lists are never appended), so a Proxy with its own `packages:` would lose the agent.
 * Scripts bypass that merge. Idempotent: re-running changes nothing once the agent runs.
 */
export const guestAgentScript = `#!/bin/sh
# kvm2: install and start qemu-guest-agent, which is how the operator learns this VM's address.
exec >>/var/log/cloud-init-output.log 2>&1
echo "kvm2: ensuring qemu-guest-agent is installed and running"

have() { command -v "$1" >/dev/null 2>&1; }

agent_installed() {
  have qemu-ga || [ -x /usr/bin/qemu-ga ] || [ -x /usr/sbin/qemu-ga ] || [ -x /usr/libexec/qemu-ga ]
}

if ! agent_installed; then
  if have apt-get; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q || true
    apt-get install -y -q qemu-guest-agent
  elif have dnf; then
    dnf install -y qemu-guest-agent
  elif have yum; then
    yum install -y qemu-guest-agent
  elif have zypper; then
    zypper --non-interactive install qemu-guest-agent
  elif have apk; then
    apk add --no-cache qemu-guest-agent
  else
    echo "kvm2: no apt-get, dnf, yum, zypper or apk found; qemu-guest-agent not installed"
    exit 0
  fi
fi

if have systemctl; then
  systemctl enable qemu-guest-agent >/dev/null 2>&1 || true
  systemctl start qemu-guest-agent
elif have rc-update; then
  rc-update add qemu-guest-agent default >/dev/null 2>&1 || true
  rc-service qemu-guest-agent start
else
  echo "kvm2: neither systemctl nor OpenRC found; start qemu-guest-agent by hand"
fi
echo "kvm2: qemu-guest-agent step finished"
`;

const domainNamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** `meta-data`: the domain name as instance-id, so a reboot is never taken for a new instance. */
export function buildMetaData(domain: string): string {
  if (!domainNamePattern.test(domain)) throw new ErrPermanent(`domain name ${JSON.stringify(domain)} is not usable in meta-data`);
  return `instance-id: ${domain}\nlocal-hostname: ${domain}\n`;
}

export interface VendorDataOptions {
  /** the config's `vendorData`, if any */
  vendorData?: string;
  installGuestAgent: boolean;
}

/** A boundary that occurs in neither part, derived from the content so the output is stable. */
function boundaryFor(parts: readonly string[]): string {
  const digest = createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 32);
  for (let counter = 0; ; counter += 1) {
    const boundary = `==kvm2-vendor-data-${digest}-${counter}==`;
    if (parts.every((part) => !part.includes(boundary))) return boundary;
  }
}

/**
 * `vendor-data`: the agent script alone; the admin's document alone (or empty) with the agent
 * off; with both, a MIME multipart (MIME-Version first, so cloud-init detects it) whose parts are
 * `text/plain` for the admin's document, which cloud-init then types by its first line, and
 * `text/x-shellscript` for the script.
 */
export function buildVendorData(options: VendorDataOptions): string {
  const document = options.vendorData ?? '';
  if (!options.installGuestAgent) return document;
  if (document === '') return guestAgentScript;
  const boundary = boundaryFor([document, guestAgentScript]);
  const part = (contentType: string, filename: string, body: string) =>
    [
      `--${boundary}`,
      `Content-Type: ${contentType}; charset="utf-8"`,
      'MIME-Version: 1.0',
      'Content-Transfer-Encoding: 8bit',
      `Content-Disposition: attachment; filename="${filename}"`,
      '',
      body,
    ].join('\n');
  return [
    'MIME-Version: 1.0',
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    '',
    part('text/plain', 'vendor-data', document),
    part('text/x-shellscript', 'kvm2-guest-agent.sh', guestAgentScript),
    `--${boundary}--`,
    '',
  ].join('\n');
}

export interface SeedOptions extends VendorDataOptions {
  /** the domain name: instance-id and local-hostname */
  domain: string;
  /** the Proxy's cloudInit, written as `user-data` byte for byte */
  cloudInit: Uint8Array | string;
  /** creation time stamped into the ISO; now when omitted */
  created?: Date;
}

const toBytes = (content: Uint8Array | string) => (typeof content === 'string' ? Buffer.from(content, 'utf8') : content);

/** The seed ISO's bytes, ready for StorageVolUpload as a raw volume. */
export function buildSeedISO(options: SeedOptions): Uint8Array {
  return writeIso9660({
    volumeId: seedVolumeLabel,
    created: options.created,
    applicationId: 'KVM2 NOCLOUD SEED',
    files: [
      { name: 'user-data', data: toBytes(options.cloudInit) },
      { name: 'meta-data', data: toBytes(buildMetaData(options.domain)) },
      { name: 'vendor-data', data: toBytes(buildVendorData(options)) },
    ],
  });
}
