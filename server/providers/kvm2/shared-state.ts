// The state a kvm2 provider entry keeps across config reloads, outside any one provider:
// provider-types.ts keeps one per entry, and each new provider (provider.ts) is built over it.
import { DownloadTracker } from './download-progress';
import { KeyedLock } from './keyed-lock';
import { RefusedDials } from './refused-dials';

/**
 * What one provider entry's successive providers share across config reloads: the per-domain and
 * per-(host, base volume) locks and the downloads in flight. Without it a Create on the new
 * provider would delete the base the old one is still uploading into.
 */
export interface Kvm2SharedState {
  domainLocks: KeyedLock;
  imageLocks: KeyedLock;
  downloads: DownloadTracker;
  /** hosts that refused the credentials: a reload must not cost another failed login on each */
  refusedDials: RefusedDials;
}

export function newKvm2SharedState(): Kvm2SharedState {
  return { domainLocks: new KeyedLock(), imageLocks: new KeyedLock(), downloads: new DownloadTracker(), refusedDials: new RefusedDials() };
}
