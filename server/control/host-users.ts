// Which Proxies use a host: the ones a host's removal, or a change of where it keeps their
// volumes, would strand (host-config.ts for the dashboard's saves, config-reload.ts for a hand edit).
import type { ProxyRecord } from '@/server/store';

/** The host a Proxy is on or headed for: its instance's host, the zone placement chose, or its zone. */
export function hostOf(record: ProxyRecord): string | undefined {
  const zone = record.spec.mode === 'Managed' ? record.spec.placement.zone : undefined;
  return record.status.host ?? record.status.chosenPlacement?.zone ?? zone;
}

/** Names of the Managed Proxies of `provider` on `host` (deleting ones too: their volumes are still there). */
export function proxiesOnHost(records: readonly ProxyRecord[], target: { provider: string; host: string }): string[] {
  return records
    .filter((record) => record.spec.mode === 'Managed' && record.spec.provider === target.provider && hostOf(record) === target.host)
    .map((record) => record.name);
}
