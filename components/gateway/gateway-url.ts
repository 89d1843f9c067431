// The proxy URL a crawler is configured with, `http://<username>:<gateway token>@<host>:<port>`,
// as the Gateway page shows it. Pure functions: the page passes the browser's hostname in.

/** The part of a listed token standing for its secret, which is shown only once, at creation. */
export const secretPlaceholder = 'PASTE_SECRET_HERE';

/** A listed token's `prefix` (`kvm2g_<id>`) completed with the placeholder for its secret. */
export const placeholderToken = (prefix: string): string => `${prefix}_${secretPlaceholder}`;

const wildcardHosts = new Set(['', '0.0.0.0', '::', '[::]']);

/** Whether the gateway listens on every interface (then its own address tells a crawler nothing). */
export const isWildcardHost = (host: string): boolean => wildcardHosts.has(host.trim());

const unbracket = (host: string): string => (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host);

/** Whether only this machine can reach `host` (a crawler elsewhere cannot). */
export function isLoopbackHost(host: string): boolean {
  const bare = unbracket(host.trim()).toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d+\.\d+\.\d+$/.test(bare);
}

/** `host` as it goes in a URL: an IPv6 literal in brackets. */
export const urlHost = (host: string): string => {
  const bare = unbracket(host.trim());
  return bare.includes(':') ? `[${bare}]` : bare;
};

/**
 * The host crawlers should dial: the configured one, unless the gateway listens on every interface
 * (0.0.0.0 or ::), when the address this browser reached the dashboard at is the best guess.
 */
export function gatewayHostFor(options: { configured: string; browserHostname: string }): string {
  return urlHost(isWildcardHost(options.configured) ? options.browserHostname : options.configured);
}

/**
 * `text` percent-encoded for the user or password of a URL. Beyond encodeURIComponent, ! ' ( ) *
 * are encoded too, so the URL can sit inside any quotes of a shell, Python or JavaScript snippet.
 */
export const encodeUserinfo = (text: string): string =>
  encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);

export interface GatewayEndpoint {
  /** as it goes in a URL (see gatewayHostFor) */
  host: string;
  port: number;
}

export interface GatewayCredentials extends GatewayEndpoint {
  username: string;
  /** the gateway token (or a placeholder for its secret) */
  password: string;
}

/** `http://<host>:<port>`, the proxy without credentials (what Playwright calls `server`). */
export const gatewayServer = (endpoint: GatewayEndpoint): string => `http://${endpoint.host}:${endpoint.port}`;

/** `http://<username>:<token>@<host>:<port>`, both credentials percent-encoded. */
export const gatewayUrl = (credentials: GatewayCredentials): string =>
  `http://${encodeUserinfo(credentials.username)}:${encodeUserinfo(credentials.password)}@${credentials.host}:${credentials.port}`;
