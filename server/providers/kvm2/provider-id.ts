// providerID `hosts/<host>/domains/<domain>`: which configured host and which domain on it.
import { dotNameRule, fileSafeName, fileSafeRule, isDotName } from '@/server/providers/config-kvm2';
import { ErrPermanent } from '@/server/providers/errors';

export interface InstanceAddress {
  host: string;
  domain: string;
}

const layout = /^hosts\/([^/]+)\/domains\/([^/]+)$/;
/** Looser than `layout`: what logs and spans can still say about a providerID that may be malformed. */
const roughLayout = /^hosts\/([^/]*)\/domains\/([^/]*)$/;
const roughHost = /^hosts\/([^/]+)\//;

/** A path segment: file-safe characters, and never `.` or `..`. */
const isSegment = (value: string): boolean => fileSafeName.test(value) && !isDotName(value);

function checkSegment(kind: string, value: string): void {
  if (isSegment(value)) return;
  const rule = isDotName(value) ? dotNameRule : fileSafeRule;
  throw new ErrPermanent(`${kind} name ${JSON.stringify(value)} ${rule}`);
}

export function formatProviderID(address: InstanceAddress): string {
  checkSegment('host', address.host);
  checkSegment('domain', address.domain);
  return `hosts/${address.host}/domains/${address.domain}`;
}

/** Splits a providerID; anything malformed is permanent (retrying cannot fix it). */
export function parseProviderID(providerID: string): InstanceAddress {
  const match = layout.exec(providerID);
  const host = match?.[1];
  const domain = match?.[2];
  if (host === undefined || domain === undefined || !isSegment(host) || !isSegment(domain)) {
    throw new ErrPermanent(`malformed providerID ${JSON.stringify(providerID)}: want hosts/<host>/domains/<domain>`);
  }
  return { host, domain };
}

/**
 * Host and domain of a providerID as far as it can be read, for logs and span attributes only: a
 * malformed one is not an error here (the operation itself fails on it, classified).
 */
export function readProviderID(providerID: string): { host: string | undefined; domain: string | undefined } {
  const match = roughLayout.exec(providerID);
  return { host: match?.[1] ?? roughHost.exec(providerID)?.[1], domain: match?.[2] };
}
