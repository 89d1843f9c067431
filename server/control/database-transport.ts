// Whether DATABASE_URL reaches its server safely. Sessions, the session signing key and the
// password hash travel on that connection, so a LAN attacker able to rewrite it could make itself
// admin: a host that is not this machine needs TLS that verifies the server (sslmode=verify-full,
// or any mode pg treats as verifying), unless the admin opts out with DATABASE_INSECURE_TLS=1.
// Loopback addresses and unix sockets never cross the LAN and need nothing.
// The decision reads the URL as pg itself will (pg-connection-string), so `?host=` and pg's
// sslmode aliases count the way they will at connect time.
import { isIP } from 'node:net';
import { parse } from 'pg-connection-string';
import { errorMessage } from '@/lib/error-message';

type Environment = Record<string, string | undefined>;

/** A refused setting: the variable to change and why (settings.ts turns it into a SettingsError). */
export interface TransportProblem {
  variable: string;
  reason: string;
}

export const insecureTlsVariable = 'DATABASE_INSECURE_TLS';

/** Where pg will connect: the URL's host (or `?host=`), else PGHOST, else localhost as pg does. */
function effectiveHost(host: string | null | undefined, env: Environment): string {
  const named = host && host.trim() !== '' ? host : env.PGHOST;
  return named && named.trim() !== '' ? named.trim() : 'localhost';
}

export function isLocalHost(host: string): boolean {
  if (host.startsWith('/') || /^%2f/i.test(host)) return true; // a unix socket directory
  const name = host.replace(/^\[(.+)\]$/, '$1').toLowerCase();
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isIP(name) === 4) return name.startsWith('127.');
  return name === '::1' || name === '0:0:0:0:0:0:0:1' || name.startsWith('::ffff:127.');
}

/** TLS that checks the server's certificate, as pg will set it up (PGSSLMODE counts when the URL says nothing). */
function verifiesServer(ssl: unknown, env: Environment): boolean {
  if (ssl === undefined) return ['prefer', 'require', 'verify-ca', 'verify-full'].includes(env.PGSSLMODE ?? '');
  if (ssl === true || ssl === 'true' || ssl === '1') return true;
  if (typeof ssl !== 'object' || ssl === null) return false;
  const options = ssl as { rejectUnauthorized?: boolean };
  return options.rejectUnauthorized !== false;
}

/** The problem with the connection DATABASE_URL describes, or undefined when it is safe (or the risk accepted). */
export function databaseTransportProblem(url: string, env: Environment): TransportProblem | undefined {
  const optOut = env[insecureTlsVariable]?.trim() ?? '';
  if (optOut !== '' && optOut !== '0' && optOut !== '1') {
    return { variable: insecureTlsVariable, reason: 'must be 1 or 0 (1 lets DATABASE_URL reach a server on another machine without verified TLS)' };
  }
  let config: ReturnType<typeof parse>;
  try {
    config = parse(url);
  } catch (err) {
    // pg reads sslrootcert/sslcert/sslkey files while parsing: a missing one is named here, not at the first query
    return { variable: 'DATABASE_URL', reason: `cannot be used: ${errorMessage(err)}` };
  }
  const host = effectiveHost(config.host, env);
  if (optOut === '1' || isLocalHost(host) || verifiesServer(config.ssl, env)) return undefined;
  return {
    variable: 'DATABASE_URL',
    reason: `the database host ${host} is not this machine, and the connection does not verify the server over TLS, so the password hash and sessions would cross the network readable and alterable. Add sslmode=verify-full (and sslrootcert=/path/to/ca.pem for a private CA) to the URL, or set ${insecureTlsVariable}=1 to accept the risk`,
  };
}
