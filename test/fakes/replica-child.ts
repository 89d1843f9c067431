// One replica of the failover tests: the real runtime against PostgreSQL (DATABASE_URL) with one
// provider entry (PROVIDER_ENTRY, JSON: the fake over a state file all replicas share, or kvm2 over
// the lab). It answers JSON commands on stdin ({id, op: create | get | cluster, ...}) with `reply`
// lines and reports on stdout, each line `<tag> {"at": epoch ms, ...}`:
//   started; leads / stepped-down (from the leadership's own log lines); call {method} for every
//   call that reaches the provider (below the lease fence), so a test sees hypervisor traffic.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { settingsFromEnv } from '@/server/control/settings';
import type { ProviderEntry } from '@/server/providers/config';
import type { Provider } from '@/server/providers/contract';
import { createKvm2Provider } from '@/server/providers/kvm2/provider';
import { ProviderRegistry } from '@/server/providers/registry';
import { createRuntime } from '@/server/runtime';
import { createLogger } from '@/server/telemetry/logger';
import { createMetrics } from '@/server/telemetry/metrics';
import { startUntilSigterm, stubProbe } from './child-runtime';
import { FakeProvider } from './fake-provider';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`replica-child: ${name} is not set`);
  return value;
};

const say = (tag: string, value: Record<string, unknown> = {}) => process.stdout.write(`${tag} ${JSON.stringify({ at: Date.now(), ...value })}\n`);

/** The provider with every method call reported before it runs. */
function reported(provider: Provider): Provider {
  return new Proxy(provider, {
    get: (target, key, receiver) => {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        say('call', { method: String(key) });
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

async function main(): Promise<void> {
  const entry = JSON.parse(env('PROVIDER_ENTRY')) as ProviderEntry;
  const dataDir = env('DATA_DIR');
  const registry = new ProviderRegistry();
  registry.register('fake', (given) => ({
    provider: reported(new FakeProvider({ name: given.name, stateFile: env('FAKE_STATE'), sharedState: true, createDelayMs: 300 })),
  }));
  registry.register('kvm2', (given, context) => {
    const provider = createKvm2Provider({ entry: given as Parameters<typeof createKvm2Provider>[0]['entry'], logger: context.logger });
    return { provider: reported(provider), close: () => provider.close() };
  });
  const configPath = join(dataDir, 'providers.json');
  writeFileSync(configPath, JSON.stringify([entry]));
  const never = '20d';
  const logger = createLogger({
    level: 'info',
    destination: {
      write: (line: string) => {
        const { msg } = JSON.parse(line) as { msg?: string };
        if (msg?.startsWith('this replica leads now')) say('leads');
        if (msg?.startsWith('this replica no longer leads')) say('stepped-down', { line: JSON.parse(line) as unknown });
      },
    },
  });
  const runtime = createRuntime({
    settings: settingsFromEnv({
      DATA_DIR: dataDir,
      DATABASE_URL: env('DATABASE_URL'),
      REPLICA_ID: env('REPLICA_ID'),
      REPLICA_ADDRESS: `replica ${env('REPLICA_ID')}`,
      LEADER_HEARTBEAT: process.env.LEADER_HEARTBEAT,
      LEADER_LEASE: process.env.LEADER_LEASE,
      PROVIDERS_CONFIG: configPath,
      RESYNC_INTERVAL: '2s',
      PROVISIONING_POLL_INTERVAL: '1s',
      RECONCILE_BACKOFF_BASE: '500ms',
      RECONCILE_BACKOFF_CAP: '3s',
      // The lab's libvirtds are shared: orphan GC would take other runs' domains for orphans.
      GC_INTERVAL: never,
      PROBE_INTERVAL: never,
      PROVIDER_CHECK_INTERVAL: never,
    }),
    registry,
    configLoader: async () => [entry],
    logger,
    metrics: createMetrics(),
    // Probe nothing at the fake's addresses (kvm2's VMs are the lab's own).
    ...(entry.type === ('fake' as string) ? { probe: stubProbe } : {}),
  });
  await startUntilSigterm(runtime, say);
  createInterface({ input: process.stdin }).on('line', (line) => {
    const command = JSON.parse(line) as { id: number; op: 'create' | 'get' | 'cluster'; body?: unknown; name?: string };
    const answer =
      command.op === 'create'
        ? runtime.services.proxies.create(command.body)
        : command.op === 'get'
          ? runtime.services.proxies.get(command.name ?? '')
          : runtime.services.cluster.view();
    answer.then(
      (value) => say('reply', { id: command.id, value }),
      (err: unknown) => say('reply', { id: command.id, error: err instanceof Error ? err.message : String(err) }),
    );
  });
}

main().catch((err: unknown) => {
  say('error', { message: err instanceof Error ? err.message : String(err) });
  process.exit(1);
});
