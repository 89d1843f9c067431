// The process the crash-safety test kills. It runs the real runtime over a fake provider whose
// instances live in a JSON file (so they survive SIGKILL, like VMs survive the server), then:
//   1. waits until what it found in the store has converged and prints `converged <snapshot>`;
//   2. drives the store through the stages of desired Proxies in $DESIRED_FILE with the Proxy
//      service, printing `applying <op>` before and `applied <op>` after each committed change;
//   3. waits for convergence again (printing `converged-again`) and idles until killed; SIGTERM
//      stops the runtime cleanly and exits 0.
// Lines go to stdout as `<tag> <json>`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProxyView } from '@/lib/proxy-spec';
import { settingsFromEnv } from '@/server/control/settings';
import { ProviderRegistry } from '@/server/providers/registry';
import { createRuntime, type Runtime } from '@/server/runtime';
import { createLogger } from '@/server/telemetry/logger';
import { createMetrics } from '@/server/telemetry/metrics';
import { startUntilSigterm, stubProbe } from './child-runtime';
import { FakeProvider } from './fake-provider';

export interface DesiredProxy {
  name: string;
  port: number;
  machineType: string;
}

export type CrashOp = { kind: 'create' | 'update'; proxy: DesiredProxy } | { kind: 'delete'; name: string };

export interface SnapshotEntry {
  name: string;
  uid: string;
  port: number;
  machineType: string;
}

const dataDir = process.env.DATA_DIR as string;
const stateFile = process.env.FAKE_STATE as string;
const desiredFile = process.env.DESIRED_FILE;

const say = (tag: string, value?: unknown) => process.stdout.write(`${tag}${value === undefined ? '' : ` ${JSON.stringify(value)}`}\n`);

function specOf(proxy: DesiredProxy) {
  return {
    mode: 'Managed' as const,
    provider: 'fake-1',
    placement: { zone: 'host-a', machineType: proxy.machineType, image: 'debian-13' },
    cloudInit: `#cloud-config\nhostname: ${proxy.name}\n`,
    port: proxy.port,
  };
}

/** Every Proxy Running on exactly its own instance, built from its current spec; nothing else exists. */
async function convergence(runtime: Runtime, provider: FakeProvider): Promise<{ done: boolean; snapshot: SnapshotEntry[]; problems: string[] }> {
  const problems: string[] = [];
  const views: ProxyView[] = await runtime.services.proxies.list();
  for (const view of views) {
    if (view.deletionRequestedAt) problems.push(`${view.name} still deleting`);
    if (view.status.phase !== 'Running' && view.status.phase !== 'Ready') problems.push(`${view.name} is ${view.status.phase}`);
    const instance = view.status.providerID ? provider.instances.get(view.status.providerID) : undefined;
    if (!instance) problems.push(`${view.name} has no instance`);
    else if (instance.uid !== view.uid || instance.port !== view.port || instance.placement?.machineType !== view.placement?.machineType)
      problems.push(`${view.name}'s instance is stale`);
  }
  if (provider.instances.size !== views.length) problems.push(`${provider.instances.size} instances for ${views.length} proxies`);
  const snapshot = views.map((view) => ({ name: view.name, uid: view.uid, port: view.port, machineType: view.placement?.machineType ?? '' }));
  return { done: problems.length === 0, snapshot, problems };
}

async function waitForConvergence(runtime: Runtime, provider: FakeProvider): Promise<SnapshotEntry[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const state = await convergence(runtime, provider);
    if (state.done) return state.snapshot;
    if (Date.now() > deadline) {
      say('stuck', state.problems);
      process.exit(1);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function opsTowards(runtime: Runtime, desired: DesiredProxy[]): Promise<CrashOp[]> {
  const current = new Map((await runtime.services.proxies.list()).map((view) => [view.name, view]));
  const ops: CrashOp[] = [];
  for (const proxy of desired) {
    const view = current.get(proxy.name);
    if (!view) ops.push({ kind: 'create', proxy });
    else if (view.port !== proxy.port || view.placement?.machineType !== proxy.machineType) ops.push({ kind: 'update', proxy });
  }
  for (const name of current.keys()) if (!desired.some((proxy) => proxy.name === name)) ops.push({ kind: 'delete', name });
  return ops;
}

async function apply(runtime: Runtime, op: CrashOp): Promise<void> {
  if (op.kind === 'delete') await runtime.services.proxies.delete(op.name);
  else if (op.kind === 'create') await runtime.services.proxies.create({ name: op.proxy.name, ...specOf(op.proxy) });
  else await runtime.services.proxies.update(op.proxy.name, specOf(op.proxy));
}

async function main(): Promise<void> {
  const provider = new FakeProvider({ name: 'fake-1', stateFile, createDelayMs: 80, bootMs: 40 });
  const registry = new ProviderRegistry();
  registry.register('fake', () => ({ provider }));
  mkdirSync(dataDir, { recursive: true });
  const configPath = join(dataDir, 'providers.yaml');
  writeFileSync(configPath, '- {name: fake-1, type: fake}\n');
  const settings = settingsFromEnv({
    DATA_DIR: dataDir,
    DATABASE_URL: process.env.DATABASE_URL,
    LEADER_HEARTBEAT: process.env.LEADER_HEARTBEAT,
    LEADER_LEASE: process.env.LEADER_LEASE,
    PROVIDERS_CONFIG: configPath,
    RESYNC_INTERVAL: '200ms',
    PROVISIONING_POLL_INTERVAL: '20ms',
    GC_INTERVAL: '150ms',
    PROVIDER_CHECK_INTERVAL: '1s',
    PROBE_INTERVAL: '1h',
    RECONCILE_BACKOFF_BASE: '20ms',
    RECONCILE_BACKOFF_CAP: '200ms',
  });
  const runtime = createRuntime({
    settings,
    registry,
    configLoader: async () => [{ name: 'fake-1', type: 'fake' }],
    logger: createLogger({ level: 'silent' }),
    metrics: createMetrics(),
    probe: stubProbe,
  });
  await startUntilSigterm(runtime, say);
  say('converged', await waitForConvergence(runtime, provider));
  if (!desiredFile) return;
  const { readFileSync } = await import('node:fs');
  // Stages: the later ones change Proxies whose Create the earlier ones set off, while it runs.
  const stages = JSON.parse(readFileSync(desiredFile, 'utf8')) as DesiredProxy[][];
  for (const desired of stages) {
    for (const op of await opsTowards(runtime, desired)) {
      say('applying', op);
      await apply(runtime, op);
      say('applied', op);
      // Spread the changes over the reconcile work so kills land between and inside passes.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  say('converged-again', await waitForConvergence(runtime, provider));
}

main().catch((err: unknown) => {
  say('error', err instanceof Error ? err.message : String(err));
  process.exit(1);
});
