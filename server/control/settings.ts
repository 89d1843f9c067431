// Runtime settings from the environment. Durations read `500ms`, `15s`, `1m`, `2h`, `7d`, or a
// bare number of seconds. A bad value stops the start with a message naming the variable.
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { databaseTransportProblem } from './database-transport';
import { AppError } from '@/server/errors';

export interface RuntimeSettings {
  dataDir: string;
  /** DATABASE_URL (postgres://…): the store lives in PostgreSQL, shared by every replica */
  databaseUrl?: string;
  /** REPLICA_ID: how /api/cluster names this replica (default `<hostname>-<pid>`) */
  replicaId: string;
  /** REPLICA_ADDRESS: where this replica serves, as /api/cluster shows it */
  replicaAddress: string;
  /** how often a replica proves it is alive (and the leader that it still holds the lock) */
  leaderHeartbeatMs: number;
  /** PostgreSQL ends a silent replica's lock session after this; the leader stops its loops a heartbeat earlier */
  leaderLeaseMs: number;
  /** path of the providers config; none means zero providers */
  providersConfigPath?: string;
  reconcileWorkers: number;
  resyncIntervalMs: number;
  /** how often a Provisioning instance is polled for its state and address */
  provisioningPollMs: number;
  quotaRetryMs: number;
  backoffBaseMs: number;
  backoffCapMs: number;
  providerCheckIntervalMs: number;
  providerCheckTimeoutMs: number;
  gcIntervalMs: number;
  gcTimeoutMs: number;
  probeIntervalMs: number;
  probeTimeoutMs: number;
  /** fetched through each proxy; unset means only the proxy port itself is asked (no outside traffic) */
  probeUrl?: string;
  /** answers with the caller's address; fetched through each proxy to record its egress IP */
  ipEchoUrl?: string;
  healthHistoryRetentionMs: number;
  eventRetentionMs: number;
  housekeepingIntervalMs: number;
  /** how often every host's and VM's CPU, memory and traffic are sampled */
  statsSampleIntervalMs: number;
  /** STATS_SAMPLE_TIMEOUT: a host's sampling round not answered by then is abandoned (unset: the sampler's default) */
  statsSampleTimeoutMs?: number;
  /** debounce of config file change notifications */
  configReloadDelayMs: number;
  /** a serial console nobody watches (and whose Proxy is not booting) is released after this */
  consoleIdleReleaseMs: number;
  /** GATEWAY_PORT: the crawlers' forward proxy (issue 24); 0 = no gateway */
  gatewayPort: number;
  /** GATEWAY_HOST: where the gateway listens; default the dashboard's own bind address (HOST, as `npm start` uses it) */
  gatewayHost: string;
  /** GATEWAY_DRAIN: a Proxy being deleted or replaced keeps its open gateway tunnels this long before its VM goes */
  gatewayDrainMs: number;
  /** SSH_DIALS_MAX: SSH dials (connect, handshake, authentication) in flight in this process; more wait their turn */
  sshDialsMax: number;
  /** SSH_DIALS_PER_ADDRESS: SSH dials in flight to one sshd address; keep it under the sshd's MaxStartups (10 by default) */
  sshDialsPerAddress: number;
}

export class SettingsError extends AppError {
  readonly code = 'ERR_SETTINGS';
  constructor(
    readonly variable: string,
    reason: string,
  ) {
    super(`${variable}: ${reason}`);
    this.name = 'SettingsError';
  }
}

const unitMs: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, '': 1_000 };

export function parseDuration(text: string, variable: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|)\s*$/.exec(text);
  if (!match) throw new SettingsError(variable, `${JSON.stringify(text)} is not a duration (e.g. 500ms, 15s, 1m, 7d)`);
  const value = Number(match[1]) * (unitMs[match[2] ?? ''] ?? 1_000);
  if (value <= 0) throw new SettingsError(variable, 'must be greater than zero');
  return Math.round(value);
}

function parseUrl(text: string, variable: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new SettingsError(variable, 'is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SettingsError(variable, 'must be an http(s) URL');
  return url.toString();
}

/** The scheme and the transport are checked here; a wrong host or password fails at start with pg's own message. */
function parseDatabaseUrl(text: string, env: Environment): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new SettingsError('DATABASE_URL', 'is not a URL (postgres://user:password@host:port/database)');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') throw new SettingsError('DATABASE_URL', 'must be a postgres:// URL');
  const problem = databaseTransportProblem(text, env);
  if (problem) throw new SettingsError(problem.variable, problem.reason);
  return text;
}

function parseCount(text: string, variable: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > 64) throw new SettingsError(variable, 'must be an integer from 1 to 64');
  return value;
}

const maxDialLimit = 10_000;

function parseDialLimit(text: string, variable: string): number {
  const value = Number(text);
  if (!/^\s*\d+\s*$/.test(text) || value < 1 || value > maxDialLimit) {
    throw new SettingsError(variable, `${JSON.stringify(text)} is not a number of dials (an integer from 1 to ${maxDialLimit})`);
  }
  return value;
}

function parseGatewayPort(text: string, dashboardPort: string): number {
  const value = Number(text);
  if (!/^\s*\d+\s*$/.test(text) || value > 65_535) {
    throw new SettingsError('GATEWAY_PORT', `${JSON.stringify(text)} is not a port (an integer from 0 to 65535; 0 turns the gateway off)`);
  }
  if (value !== 0 && String(value) === dashboardPort.trim()) {
    throw new SettingsError('GATEWAY_PORT', `${value} is the dashboard's own PORT; pick another port for the gateway (default 8888)`);
  }
  return value;
}

/** An address or a host name to listen on, as `next start -H` takes it. */
function parseListenHost(text: string, variable: string): string {
  const host = text.trim();
  if (isIP(host) === 0 && !/^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(host)) {
    throw new SettingsError(variable, `${JSON.stringify(text)} is not an address or host name to listen on (e.g. 0.0.0.0, 192.168.1.5, ::)`);
  }
  return host;
}

type DurationKey = {
  [K in keyof RuntimeSettings]-?: RuntimeSettings[K] extends number ? K : never;
}[keyof RuntimeSettings];

// One row per duration setting: the variable that sets it and its default.
const durations: Record<
  Exclude<DurationKey, 'reconcileWorkers' | 'gatewayPort' | 'sshDialsMax' | 'sshDialsPerAddress'>,
  { variable: string; fallback: string }
> = {
  resyncIntervalMs: { variable: 'RESYNC_INTERVAL', fallback: '1m' },
  provisioningPollMs: { variable: 'PROVISIONING_POLL_INTERVAL', fallback: '10s' },
  quotaRetryMs: { variable: 'QUOTA_RETRY', fallback: '5m' },
  backoffBaseMs: { variable: 'RECONCILE_BACKOFF_BASE', fallback: '1s' },
  backoffCapMs: { variable: 'RECONCILE_BACKOFF_CAP', fallback: '5m' },
  providerCheckIntervalMs: { variable: 'PROVIDER_CHECK_INTERVAL', fallback: '1m' },
  providerCheckTimeoutMs: { variable: 'PROVIDER_CHECK_TIMEOUT', fallback: '15s' },
  gcIntervalMs: { variable: 'GC_INTERVAL', fallback: '10m' },
  gcTimeoutMs: { variable: 'GC_TIMEOUT', fallback: '2m' },
  probeIntervalMs: { variable: 'PROBE_INTERVAL', fallback: '30s' },
  probeTimeoutMs: { variable: 'PROBE_TIMEOUT', fallback: '5s' },
  healthHistoryRetentionMs: { variable: 'HEALTH_HISTORY_RETENTION', fallback: '7d' },
  eventRetentionMs: { variable: 'EVENT_RETENTION', fallback: '7d' },
  housekeepingIntervalMs: { variable: 'HOUSEKEEPING_INTERVAL', fallback: '10m' },
  statsSampleIntervalMs: { variable: 'STATS_SAMPLE_INTERVAL', fallback: '10s' },
  configReloadDelayMs: { variable: 'CONFIG_RELOAD_DELAY', fallback: '250ms' },
  consoleIdleReleaseMs: { variable: 'CONSOLE_IDLE_RELEASE', fallback: '1m' },
  leaderHeartbeatMs: { variable: 'LEADER_HEARTBEAT', fallback: '2s' },
  leaderLeaseMs: { variable: 'LEADER_LEASE', fallback: '10s' },
  gatewayDrainMs: { variable: 'GATEWAY_DRAIN', fallback: '30s' },
};

const nonEmpty = (value: string | undefined): string | undefined => (value === undefined || value.trim() === '' ? undefined : value);

export type Environment = Record<string, string | undefined>;

/** STATS_SAMPLE_TIMEOUT when set; past the interval, one stuck host would cost the others more than a round. */
function statsTimeout(env: Environment, intervalMs: number): number | undefined {
  const text = nonEmpty(env.STATS_SAMPLE_TIMEOUT);
  if (text === undefined) return undefined;
  const timeoutMs = parseDuration(text, 'STATS_SAMPLE_TIMEOUT');
  if (timeoutMs > intervalMs) throw new SettingsError('STATS_SAMPLE_TIMEOUT', 'must not be longer than STATS_SAMPLE_INTERVAL');
  return timeoutMs;
}

export function settingsFromEnv(env: Environment = process.env): RuntimeSettings {
  const timing = Object.fromEntries(
    Object.entries(durations).map(([key, { variable, fallback }]) => [key, parseDuration(nonEmpty(env[variable]) ?? fallback, variable)]),
  ) as Record<keyof typeof durations, number>;
  const probeUrl = nonEmpty(env.PROBE_URL);
  const ipEchoUrl = nonEmpty(env.IP_ECHO_URL);
  const providersConfigPath = nonEmpty(env.PROVIDERS_CONFIG);
  const databaseUrl = nonEmpty(env.DATABASE_URL);
  const gatewayHost = nonEmpty(env.GATEWAY_HOST);
  // The lease must outlast a few heartbeats, or a healthy leader would lose it between two.
  if (timing.leaderLeaseMs < 3 * timing.leaderHeartbeatMs) throw new SettingsError('LEADER_LEASE', 'must be at least three LEADER_HEARTBEAT intervals');
  const statsSampleTimeoutMs = statsTimeout(env, timing.statsSampleIntervalMs);
  return {
    ...timing,
    ...(statsSampleTimeoutMs !== undefined ? { statsSampleTimeoutMs } : {}),
    dataDir: nonEmpty(env.DATA_DIR) ?? './data',
    replicaId: nonEmpty(env.REPLICA_ID) ?? `${hostname()}-${process.pid}`,
    replicaAddress: nonEmpty(env.REPLICA_ADDRESS) ?? `${hostname()}:${nonEmpty(env.PORT) ?? '3000'}`,
    reconcileWorkers: parseCount(nonEmpty(env.RECONCILE_WORKERS) ?? '3', 'RECONCILE_WORKERS'),
    // 4 per address: one process stays well under OpenSSH's default MaxStartups 10:30:100.
    sshDialsMax: parseDialLimit(nonEmpty(env.SSH_DIALS_MAX) ?? '32', 'SSH_DIALS_MAX'),
    sshDialsPerAddress: parseDialLimit(nonEmpty(env.SSH_DIALS_PER_ADDRESS) ?? '4', 'SSH_DIALS_PER_ADDRESS'),
    gatewayPort: parseGatewayPort(nonEmpty(env.GATEWAY_PORT) ?? '8888', nonEmpty(env.PORT) ?? '3000'),
    // The dashboard's own default (package.json's start: next start -H "${HOST:-127.0.0.1}").
    gatewayHost: gatewayHost ? parseListenHost(gatewayHost, 'GATEWAY_HOST') : (nonEmpty(env.HOST)?.trim() ?? '127.0.0.1'),
    ...(providersConfigPath ? { providersConfigPath } : {}),
    ...(databaseUrl ? { databaseUrl: parseDatabaseUrl(databaseUrl, env) } : {}),
    ...(probeUrl ? { probeUrl: parseUrl(probeUrl, 'PROBE_URL') } : {}),
    ...(ipEchoUrl ? { ipEchoUrl: parseUrl(ipEchoUrl, 'IP_ECHO_URL') } : {}),
  };
}
