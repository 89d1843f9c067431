// An optional capability of the provider contract: a read-only look at one instance where it runs,
// for the diagnosis of a Proxy that is not Ready (server/control/diagnosis.ts). Nothing here may
// change anything on the host: no create, start, define or delete, only reads.
import type { CallOptions } from './contract';

export interface DomainFacts {
  defined: boolean;
  /** virsh's word (running, shut off, paused, ...); absent when not defined */
  state?: string;
  running: boolean;
}

export interface SeedFacts {
  /** the seed volume's name on the host */
  volume: string;
  /** whether the pool holds it */
  volumeExists: boolean;
  /** the domain's disk carrying it (e.g. `sda (cdrom)`), when attached */
  attachedAs?: string;
}

export type AddressSource = 'agent' | 'arp';

export interface AddressAnswer {
  source: AddressSource;
  /** the first usable IPv4 address the source reported */
  ip?: string;
  /** every address the source reported */
  addresses: string[];
  /** the source's own error (e.g. libvirt's "QEMU guest agent is not connected") */
  error?: string;
}

/** One instance's host connection, open for reads; every method throws classified on failure. */
export interface InstanceInspection {
  readonly host: string;
  readonly domain: string;
  domainFacts(options?: CallOptions): Promise<DomainFacts>;
  seed(options?: CallOptions): Promise<SeedFacts>;
  /** what one address source answers now; a source that refuses answers with `error` */
  addresses(source: AddressSource, options?: CallOptions): Promise<AddressAnswer>;
  /** Ends the connection. Never throws. */
  close(): Promise<void>;
}

export interface InstanceInspector {
  /** Opens a read-only connection to the host the providerID names; throws classified when it cannot. */
  open(providerID: string, options?: CallOptions): Promise<InstanceInspection>;
}
