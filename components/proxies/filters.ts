// The Proxies table's filters, applied in the browser over the polled list so typing never waits
// for the server. A label selector reads like kubectl's: `key=value,key2=value2`.
import type { ProxyView } from '@/lib/proxy-spec';

export interface ProxyFilters {
  text: string;
  phase: string;
  provider: string;
  mode: string;
  labels: string;
}

export const noFilters: ProxyFilters = { text: '', phase: '', provider: '', mode: '', labels: '' };

export function parseLabelSelector(selector: string): Array<[string, string]> {
  return selector
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const equals = part.indexOf('=');
      return equals < 0 ? [part, ''] : [part.slice(0, equals).trim(), part.slice(equals + 1).trim()];
    });
}

export function applyFilters(proxies: ProxyView[], filters: ProxyFilters): ProxyView[] {
  const text = filters.text.trim().toLowerCase();
  const labels = parseLabelSelector(filters.labels);
  return proxies.filter(
    (proxy) =>
      (text === '' || proxy.name.includes(text) || (proxy.status.ip ?? '').includes(text)) &&
      (filters.phase === '' || proxy.status.phase === filters.phase) &&
      (filters.provider === '' || proxy.provider === filters.provider) &&
      (filters.mode === '' || proxy.mode === filters.mode) &&
      labels.every(([key, value]) => (value === '' ? key in proxy.labels : proxy.labels[key] === value)),
  );
}
