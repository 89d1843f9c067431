// The contract every provider type implements, and the only thing the control plane and the HTTP
// layer know about providers. Errors thrown by these methods carry one of the classes in ./errors.ts.
import type { HostCapacityReader } from './host-capacity';
import type { HostInventory } from './host-inventory';
import type { InstanceConsole } from './instance-console';
import type { InstanceInspector } from './instance-inspection';
import type { HostStatsReader } from './host-stats';

/** Where and on what a Proxy's instance runs (the Proxy's `spec.placement`). */
export interface Placement {
  /** kvm2: a `hosts[].name`; may be omitted when exactly one host is configured */
  zone?: string;
  /** ignored by kvm2, but part of the spec hash */
  region?: string;
  /** kvm2: a key of `machineTypes` */
  machineType: string;
  /** kvm2: a key of `images`, or an http(s) URL */
  image: string;
}

export interface CreateRequest {
  /** the deterministic instance name (the domain name for kvm2) */
  name: string;
  /** the owning Proxy's UID, stored on the instance so a repeat Create recognises its own */
  uid: string;
  placement: Placement;
  /** cloud-init user-data, delivered byte for byte; never logged */
  cloudInit: Uint8Array | string;
  /** the Proxy's `spec.port`; kvm2 does not use it */
  port: number;
  /**
   * Called once the instance has been started (kvm2: DomainCreate answered), before Create waits
   * for it to run, so a caller can open its console in time to see the boot. Must not throw.
   */
  onStarted?: (providerID: string) => void;
}

/**
 * Provisioning: exists but not usable yet (booting, no address yet, state unknown).
 * Running: active and addressed. Stopped: exists but not running; the reconciler replaces it.
 * Paused: an admin paused or suspended it on its host; the reconciler leaves it alone until it
 * is resumed there (never resumes, replaces or deletes it on its own).
 */
export type InstanceState = 'Provisioning' | 'Running' | 'Stopped' | 'Paused';

export interface Instance {
  /** kvm2: `hosts/<host>/domains/<domain>`; opaque outside the provider (read `host` instead) */
  providerID: string;
  /** the place it runs (kvm2: the configured host's name); absent when the provider has no such place */
  host?: string;
  name: string;
  state: InstanceState;
  /** first usable IPv4 address, once known */
  ip?: string;
  /** owning Proxy's UID as recorded on the instance; empty when the mark carries none */
  uid?: string;
  /** RFC 3339 time the instance was created, as recorded on it */
  created?: string;
  /** for Paused: what the host reports and how the admin resumes it, for the Proxy's condition */
  detail?: string;
}

/** The storage a target keeps instances on, as far as its check got (kvm2: the host's `pool`). */
export interface TargetPool {
  name: string;
  /** virsh's word: running, inactive, building, degraded, inaccessible */
  state?: string;
  capacityBytes?: number;
  availableBytes?: number;
}

/** One health target of a provider (kvm2: one per configured host, in config order). */
export interface Target {
  name: string;
  ready: boolean;
  /** a provider-specific reason word, e.g. kvm2's `Reachable`, `Unauthorized`, `PoolNotActive` */
  reason: string;
  /** human-readable detail of a failure; empty when ready */
  message: string;
  /** facts gathered before the check finished or broke (kvm2: user, pool, hostname, ...) */
  details: Record<string, string>;
  /** the pool facts typed (read these, not `details`, which carries them as text for the spec's readers) */
  pool?: TargetPool;
  latencyMs: number;
  /** RFC 3339 */
  checkedAt: string;
}

/** A state change of one instance, reported by the provider as it happens. */
export interface InstanceChange {
  /** as Get takes it (kvm2: `hosts/<host>/domains/<domain>`) */
  providerID: string;
  /** the instance name (kvm2: the domain name); foreign instances are reported too */
  name: string;
  /** the target it is on (kvm2: the host) */
  target: string;
  /** what happened, in the provider's words, for logs (kvm2: `Stopped/Destroyed`, `Suspended/Paused`) */
  event: string;
  /** the instance's state after the change, in the host listing's words (kvm2: virsh's, e.g. `paused`); absent when it could not be read */
  state?: string;
  /** the instance is gone from its target (kvm2: the domain was undefined) */
  removed?: true;
}

export interface InstanceWatcher {
  changed(change: InstanceChange): void;
  /** changes on `target` may have been missed (the watch was re-established): look at everything */
  missed?(target: string): void;
  /** something on `target` itself changed that its health check looks at (kvm2: a storage pool started, stopped or refreshed) */
  targetChanged?(target: string, what: string): void;
}

export interface InstanceWatch {
  /** Ends the watch: no more calls to the watcher. */
  stop(): Promise<void>;
}

export interface CallOptions {
  /** ends waiting (and in-flight work where possible) with an ErrTransient */
  signal?: AbortSignal;
}

export interface CheckOptions extends CallOptions {
  /**
   * Runs each target's check; the provider calls it once per target with that target's work. The
   * health monitor opens its `providerhealth.check` span here, so the check's own spans (dial,
   * RPCs) are children of the target they belong to.
   */
  aroundTarget?: (target: string, check: () => Promise<Target>) => Promise<Target>;
  /** the targets as last recorded, so a condition can outlive one check (kvm2: KVM no longer offered) */
  previous?: Target[];
}

/**
 * The tag the control plane lists its instances by. kvm2 marks its domains with its own metadata
 * element (managed=true), so this is the only tag value it answers to.
 */
export const managedTag = 'managed';

export interface Provider {
  /** the configured entry name, e.g. `kvm2-home` */
  readonly name: string;
  /** the entry's type, e.g. `kvm2` */
  readonly type: string;
  /** Idempotent: converges on a running instance; never throws a NotFound error. */
  create(request: CreateRequest, options?: CallOptions): Promise<Instance>;
  /** NotFound when the instance is gone. */
  get(providerID: string, options?: CallOptions): Promise<Instance>;
  /** Idempotent: an instance already gone is success. */
  delete(providerID: string, options?: CallOptions): Promise<void>;
  /** Every instance carrying `tag` on every configured target; GC compares them with the Proxies. */
  listByTag(tag: string, options?: CallOptions): Promise<Instance[]>;
  /** One health result per target; never throws for an unhealthy target. */
  check(options?: CheckOptions): Promise<Target[]>;
  /**
   * Optional: the targets `check` reports on, in order, with the details known without checking
   * (kvm2: `user` and `pool`), so a check that throws or overruns is still recorded per target.
   */
  checkTargets?(): Array<Pick<Target, 'name' | 'details' | 'pool'>>;
  /** Present on providers whose instances run on hosts the admin owns (host listings, image cache). */
  readonly inventory?: HostInventory;
  /**
   * Optional: reports instance state changes on every target as they happen (kvm2: libvirt
   * lifecycle events), until stopped, so the reconciler need not wait for its next resync.
   */
  watchInstances?(watcher: InstanceWatcher): InstanceWatch;
  /** Present on providers with several hosts to choose from: lets the control plane place a Proxy. */
  readonly capacity?: HostCapacityReader;
  /** Present on providers that can open an instance's serial console. */
  readonly console?: InstanceConsole;
  /** Present on providers that can look at one instance where it runs, read-only (the diagnosis). */
  readonly inspector?: InstanceInspector;
  /** Present on providers that can read their hosts' and instances' telemetry (CPU, memory, traffic). */
  readonly stats?: HostStatsReader;
}
