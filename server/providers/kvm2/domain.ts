// Reading a domain as kvm2 sees it: found by name or not, kvm2's mark on it, and libvirt's
// domain states: the name messages use (go-libvirt's, e.g. DomainPaused), what Get reports for
// each, and what a repeat Create does with an existing domain.
import { DomainMetadataType, DomainState, isLibvirtError, type Domain } from '@/server/libvirt';
import type { InstanceState } from '@/server/providers/contract';
import type { LibvirtAPI } from './libvirt-api';
import { metadataURI, parseMetadataXML, type InstanceMetadata } from './metadata';

/** The domain of that name, or undefined when libvirt has none. */
export async function lookupDomain(api: LibvirtAPI, name: string, signal?: AbortSignal): Promise<Domain | undefined> {
  try {
    return await api.domainLookupByName({ name, signal });
  } catch (err) {
    if (isLibvirtError(err, 'ErrNoDomain')) return undefined;
    throw err;
  }
}

/** kvm2's mark on a domain (undefined when it has none); corrupt metadata is permanent. */
export async function readMark(api: LibvirtAPI, dom: Domain, signal?: AbortSignal): Promise<InstanceMetadata | undefined> {
  try {
    const xml = await api.domainGetMetadata({ dom, type: DomainMetadataType.Element, uri: metadataURI, signal });
    return parseMetadataXML(xml);
  } catch (err) {
    if (isLibvirtError(err, 'ErrNoDomainMetadata')) return undefined;
    throw err;
  }
}

/** go-libvirt's constant names, which the spec's messages quote. */
export const domainStateNames: Record<number, string> = {
  [DomainState.NoState]: 'DomainNostate',
  [DomainState.Running]: 'DomainRunning',
  [DomainState.Blocked]: 'DomainBlocked',
  [DomainState.Paused]: 'DomainPaused',
  [DomainState.Shutdown]: 'DomainShutdown',
  [DomainState.Shutoff]: 'DomainShutoff',
  [DomainState.Crashed]: 'DomainCrashed',
  [DomainState.PmSuspended]: 'DomainPmsuspended',
};

export const domainStateName = (state: number): string => domainStateNames[state] ?? `DomainState(${state})`;

/**
 * Get's view: running and blocked are active (Running once addressed, Provisioning until then);
 * nostate is Provisioning, since Stopped would make the reconciler replace a VM libvirt merely
 * could not read; paused and pmsuspended are Paused (an admin's doing: the operator never resumes
 * or rebuilds such a VM); shutdown, shutoff and crashed are Stopped.
 */
export type StateClass = 'active' | 'unknown' | 'paused' | 'stopped';

export const stateClassOf: Record<number, StateClass> = {
  [DomainState.NoState]: 'unknown',
  [DomainState.Running]: 'active',
  [DomainState.Blocked]: 'active',
  [DomainState.Paused]: 'paused',
  [DomainState.Shutdown]: 'stopped',
  [DomainState.Shutoff]: 'stopped',
  [DomainState.Crashed]: 'stopped',
  [DomainState.PmSuspended]: 'paused',
};

const instanceStateOfClass: Record<Exclude<StateClass, 'active'>, InstanceState> = {
  unknown: 'Provisioning',
  paused: 'Paused',
  stopped: 'Stopped',
};

export function instanceStateOf(state: number, ip: string | undefined): InstanceState {
  const stateClass = stateClassOf[state] ?? 'stopped';
  if (stateClass === 'active') return ip ? 'Running' : 'Provisioning';
  return instanceStateOfClass[stateClass];
}

/** The virsh command that undoes each pause: a pmsuspended guest is woken, not resumed. */
const resumeCommand: Partial<Record<number, string>> = {
  [DomainState.Paused]: 'virsh resume',
  [DomainState.PmSuspended]: 'virsh dompmwakeup',
};

/** For a paused domain: the state as libvirt names it and how the admin resumes it on the host. */
export function pausedDetail(options: { host: string; domain: string; state: number }): string | undefined {
  const command = resumeCommand[options.state];
  if (!command) return undefined;
  return (
    `domain ${options.domain} is ${domainStateName(options.state)} on host ${options.host}; ` +
    `nothing here resumes or replaces it; resume it on the host with ${command} ${options.domain}`
  );
}

/**
 * A repeat Create's move for a domain that already exists: nothing when it runs; start it when
 * it is off or crashed; refuse one an admin paused or suspended (the operator never resumes a
 * VM); wait out the states libvirt is moving through.
 */
export type ExistingDomainAction = 'none' | 'start' | 'refuse' | 'wait';

export const existingDomainAction: Record<number, ExistingDomainAction> = {
  [DomainState.NoState]: 'wait',
  [DomainState.Running]: 'none',
  [DomainState.Blocked]: 'none',
  [DomainState.Paused]: 'refuse',
  [DomainState.Shutdown]: 'wait',
  [DomainState.Shutoff]: 'start',
  [DomainState.Crashed]: 'start',
  [DomainState.PmSuspended]: 'refuse',
};

/** While waiting for running after a start, these end the wait at once. */
export const failsRightAfterStart: ReadonlySet<number> = new Set([DomainState.Shutoff, DomainState.Crashed, DomainState.Paused, DomainState.PmSuspended]);

export const isRunningState = (state: number): boolean => stateClassOf[state] === 'active';
