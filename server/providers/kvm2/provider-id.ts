// providerID `hosts/<host>/domains/<domain>`: which configured host and which domain on it.
import { ErrPermanent } from '@/server/providers/errors';

export interface InstanceAddress {
  host: string;
  domain: string;
}

const segment = /^[A-Za-z0-9._-]+$/;
const layout = /^hosts\/([^/]+)\/domains\/([^/]+)$/;

function checkSegment(kind: string, value: string): void {
  if (!segment.test(value)) {
    throw new ErrPermanent(`${kind} name ${JSON.stringify(value)} may contain only letters, digits, dots, dashes and underscores`);
  }
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
  if (host === undefined || domain === undefined || !segment.test(host) || !segment.test(domain)) {
    throw new ErrPermanent(`malformed providerID ${JSON.stringify(providerID)}: want hosts/<host>/domains/<domain>`);
  }
  return { host, domain };
}
