// `host:port` as written in hosts[].address, and the name OpenSSH files that endpoint under in
// known_hosts.

export interface SshEndpoint {
  host: string;
  port: number;
}

const bracketedForm = /^\[([^\]]+)\](?::(\d+))?$/;

/**
 * Parses `host:port`, `[v6addr]:port`, or a bare host (port 22). A bare IPv6 address without
 * brackets is taken as a host with port 22, because its colons leave no port to split off.
 */
export function parseSshAddress(address: string): SshEndpoint {
  const trimmed = address.trim();
  const bracketed = bracketedForm.exec(trimmed);
  if (bracketed) return { host: bracketed[1] ?? '', port: toPort(bracketed[2], address) };

  const lastColon = trimmed.lastIndexOf(':');
  const isPlainHostPort = lastColon >= 0 && trimmed.indexOf(':') === lastColon;
  if (!isPlainHostPort) return { host: requireHost(trimmed, address), port: 22 };
  return {
    host: requireHost(trimmed.slice(0, lastColon), address),
    port: toPort(trimmed.slice(lastColon + 1), address),
  };
}

function requireHost(host: string, address: string): string {
  if (host === '' || /\s/.test(host)) throw new TypeError(`invalid ssh address "${address}": no host`);
  return host;
}

function toPort(text: string | undefined, address: string): number {
  if (text === undefined) return 22;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 1 || port > 65535) {
    throw new TypeError(`invalid ssh address "${address}": port must be 1-65535`);
  }
  return port;
}

/** OpenSSH's key for an endpoint: the bare lower-cased host on port 22, `[host]:port` otherwise. */
export function knownHostsName(endpoint: SshEndpoint): string {
  const host = endpoint.host.toLowerCase();
  return endpoint.port === 22 ? host : `[${host}]:${endpoint.port}`;
}

export function formatEndpoint(endpoint: SshEndpoint): string {
  const host = endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host;
  return `${host}:${endpoint.port}`;
}
