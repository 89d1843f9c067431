// Admin CLI: the health check from the server's point of view, before wiring a host in.
//
//   npm run hosts -- check --config <providers.yaml> [--json] [--timeout <seconds>]
//
// Checks every host of every kvm2 provider in the file (each on a fresh connection, as the
// monitor does) and prints each target's reason, what to look at, and the facts gathered.
// Exit 0 when every target is Reachable, 1 when one is not, 2 for a bad command line or config.
// Logs (WARNING lines, and debug lines with LOG_LEVEL=debug) go to stderr.
import { parseArgs } from 'node:util';
import pino from 'pino';
import type { Target } from '@/server/providers/contract';
import { loadProvidersConfig, ProvidersConfigError, type ProvidersConfig } from '@/server/providers/config';
import { checkHosts, checkReason, type CheckReason } from '@/server/providers/kvm2/check';
import { createHostBackend } from '@/server/providers/kvm2/hosts';
import { startupWarnings, withDefaults } from '@/server/providers/kvm2/kvm2';
import { createLogger, type Logger } from '@/server/telemetry/logger';
import { errorMessage } from '@/lib/error-message';

const usage = 'usage: npm run hosts -- check --config <providers.yaml> [--json] [--timeout <seconds>]';
const defaultTimeoutSeconds = 15;

class UsageError extends Error {}

interface CheckCommand {
  configPath: string;
  json: boolean;
  timeoutMs: number;
}

interface ProviderResult {
  provider: string;
  targets: Target[];
}

function parseCommand(argv: string[]): CheckCommand {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { config: { type: 'string' }, json: { type: 'boolean', default: false }, timeout: { type: 'string' } },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const [command, ...extra] = parsed.positionals;
  if (command !== 'check') throw new UsageError(command === undefined ? 'no command given' : `unknown command ${JSON.stringify(command)}`);
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
  if (!parsed.values.config) throw new UsageError('--config is required');
  const timeoutSeconds = parsed.values.timeout === undefined ? defaultTimeoutSeconds : Number(parsed.values.timeout);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) throw new UsageError('--timeout must be a number of seconds above 0');
  return { configPath: parsed.values.config, json: parsed.values.json, timeoutMs: timeoutSeconds * 1000 };
}

async function checkProviders(config: ProvidersConfig, options: { logger: Logger; timeoutMs: number }): Promise<ProviderResult[]> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  return Promise.all(
    config.map(async (entry) => {
      const settings = withDefaults(entry);
      const logger = options.logger.child({ name: 'kvm2', provider: settings.name });
      startupWarnings(settings, { log: logger });
      const backend = createHostBackend({ providerName: settings.name, settings, logger });
      try {
        return { provider: settings.name, targets: await checkHosts({ backend, settings, logger, signal }) };
      } finally {
        await backend.closeAll();
      }
    }),
  );
}

const detailOrder = ['user', 'pool', 'libvirtVersion', 'hostname', 'poolState', 'poolCapacityGiB', 'poolAvailableGiB'];

/** The reason table's hint with this target's pool filled in. */
const lookAt = (hint: string, target: Target): string => hint.replaceAll('<pool>', target.details.pool ?? '<pool>');

function formatTable(results: ProviderResult[]): string {
  const rows = results.flatMap(({ provider, targets }) => targets.map((target) => [provider, target.name, target.reason, `${target.latencyMs} ms`]));
  const header = ['PROVIDER', 'HOST', 'REASON', 'LATENCY'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  const out = [line(header), ...rows.map(line)];
  for (const { provider, targets } of results) {
    for (const target of targets) {
      out.push('', `${provider}/${target.name}: ${target.reason}`);
      const info = checkReason[target.reason as CheckReason];
      if (!target.ready) {
        if (target.message) out.push(`  error:    ${target.message}`);
        if (info) out.push(`  meaning:  ${info.meaning}`, `  look at:  ${lookAt(info.lookAt, target)}`);
      }
      const keys = [...detailOrder.filter((key) => key in target.details), ...Object.keys(target.details).filter((key) => !detailOrder.includes(key))];
      for (const key of keys) out.push(`  ${key}: ${target.details[key]}`);
    }
  }
  return out.join('\n');
}

function formatJson(results: ProviderResult[]): string {
  const withExplanations = results.map(({ provider, targets }) => ({
    provider,
    targets: targets.map((target) => {
      const info = checkReason[target.reason as CheckReason];
      return { ...target, meaning: info?.meaning ?? '', lookAt: lookAt(info?.lookAt ?? '', target) };
    }),
  }));
  return JSON.stringify(withExplanations, null, 2);
}

async function main(argv: string[]): Promise<number> {
  let command: CheckCommand;
  try {
    command = parseCommand(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`hosts: ${err.message}\n${usage}\n`);
    return 2;
  }
  let config: ProvidersConfig;
  try {
    config = await loadProvidersConfig(command.configPath);
  } catch (err) {
    if (!(err instanceof ProvidersConfigError)) throw err;
    process.stderr.write(`hosts: the providers config is not usable:\n${err.issues.map((issue) => `  ${err.source}: ${issue}`).join('\n')}\n`);
    return 2;
  }
  if (config.length === 0) {
    process.stderr.write(`hosts: ${command.configPath} configures no kvm2 provider\n`);
    return 2;
  }
  const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'warn', destination: pino.destination(2) });
  const results = await checkProviders(config, { logger, timeoutMs: command.timeoutMs });
  process.stdout.write(`${command.json ? formatJson(results) : formatTable(results)}\n`);
  return results.every(({ targets }) => targets.every((target) => target.ready)) ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`hosts: ${errorMessage(err)}\n`);
    process.exit(1);
  },
);
