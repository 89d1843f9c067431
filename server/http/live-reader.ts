// What an API token may hear on the live feed. A token is a reader credential (discovery and
// metrics, none of the admin routes), so its stream carries Proxy changes only: host health, domain
// lifecycle and stats describe the admin's hypervisors and are left out. In what remains, every URL
// loses its credentials, query and fragment (redactUrl), since a Proxy's image may be an
// `https://user:token@mirror/...?signature=...` URL, and errors and conditions may quote it.
import type { LiveChange } from '@/lib/api/live';
import type { ProxyView } from '@/lib/api/proxies';
import { redactUrl } from '@/server/telemetry/redact-url';

/** scheme://anything up to whitespace or a quote: what a message may quote of a URL */
const urlInText = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi;

/** `text` with each URL in it redacted; text without one comes back unchanged. */
export function redactUrlsIn(text: string): string {
  return text.replace(urlInText, (url) => {
    // A trailing `:` or `,` belongs to the sentence, not the URL ("GET https://h/p: 403").
    const [, body = url, tail = ''] = /^(.*?)([:.,;)]*)$/.exec(url) ?? [];
    const redacted = redactUrl(body);
    return redacted === '<unparseable URL>' ? '<URL>' + tail : redacted + tail;
  });
}

function readerProxy(proxy: ProxyView): ProxyView {
  const { placement, status } = proxy;
  return {
    ...proxy,
    ...(placement ? { placement: { ...placement, image: redactUrlsIn(placement.image) } } : {}),
    status: {
      ...status,
      conditions: status.conditions.map((condition) => ({ ...condition, message: redactUrlsIn(condition.message) })),
      ...(status.lastError ? { lastError: { ...status.lastError, message: redactUrlsIn(status.lastError.message) } } : {}),
    },
  };
}

/** The change as a token's stream carries it, or undefined when a token does not get it. */
export function readerChange(change: LiveChange): LiveChange | undefined {
  if (change.kind !== 'proxy') return undefined;
  return { ...change, proxy: change.proxy ? readerProxy(change.proxy) : null };
}
