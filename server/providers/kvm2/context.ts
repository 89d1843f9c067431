// What every kvm2 operation (create.ts, instance.ts) runs with: the settings, the way to the
// hosts, the budgets, the locks that serialise Create and Delete of one domain name and the
// download of one base image, the detected virt types, and the logger (already carrying `provider`).
import type { Logger } from '@/server/telemetry/logger';
import type { Budgets } from './backend';
import type { DownloadTracker } from './download-progress';
import type { KeyedLock } from './keyed-lock';
import type { Kvm2Host, Kvm2Settings } from './kvm2';
import type { HostBackend } from './libvirt-api';
import type { VirtTypeDetections } from './virt-type';

export interface Kvm2Context {
  settings: Kvm2Settings;
  backend: HostBackend;
  budgets: Budgets;
  logger: Logger;
  /** per domain name; Create and Delete take it, Get and ListByTag do not */
  domainLocks: KeyedLock;
  /** per (host, base volume) */
  imageLocks: KeyedLock;
  downloads: DownloadTracker;
  /** `virtType: detect` answers, per pooled connection */
  virtTypes: VirtTypeDetections;
  now: () => Date;
}

/** The logger for lines about one instance: `host` and `name` on every line. */
export function instanceLogger(context: Kvm2Context, host: Kvm2Host | string, name: string): Logger {
  return context.logger.child({ host: typeof host === 'string' ? host : host.name, name });
}

/** Resolves after `ms`, or rejects with the signal's reason when it fires first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
