// The process's one runtime. Next's dev server evaluates modules more than once and bundles each
// route separately, so the instance lives on globalThis, not in a module variable; the routes reach
// it through getRuntime, instrumentation starts it, and SIGTERM/SIGINT stop it before the process exits.
import { settingsFromEnv } from '@/server/control/settings';
import { createRuntime, type Runtime, type RuntimeOptions } from './create-runtime';

const globalKey = Symbol.for('kvm2-proxies.runtime');
type GlobalWithRuntime = typeof globalThis & { [globalKey]?: Promise<Runtime> };

/**
 * Starts the process's runtime once (settings from the environment) and stops it on SIGTERM or
 * SIGINT. Later calls, including from a second evaluation of this module, get the same runtime.
 */
export function startRuntimeOnce(options: Partial<RuntimeOptions> = {}): Promise<Runtime> {
  const holder = globalThis as GlobalWithRuntime;
  holder[globalKey] ??= (async () => {
    const runtime = createRuntime({ ...options, settings: options.settings ?? settingsFromEnv() });
    await runtime.start();
    stopOnSignals(runtime);
    return runtime;
  })().catch((err: unknown) => {
    // A failed start (bad settings, unreadable store) is not cached: the next call tries again.
    delete holder[globalKey];
    throw err;
  });
  return holder[globalKey];
}

/** Stops the process's runtime, if one was started, so the next startRuntimeOnce starts afresh (tests). */
export async function stopRuntimeForTests(): Promise<void> {
  const holder = globalThis as GlobalWithRuntime;
  const pending = holder[globalKey];
  delete holder[globalKey];
  const runtime = await pending?.catch(() => undefined);
  await runtime?.stop();
}

/** The runtime started by startRuntimeOnce; the HTTP routes call this. */
export function getRuntime(): Promise<Runtime> {
  const existing = (globalThis as GlobalWithRuntime)[globalKey];
  return existing ?? startRuntimeOnce();
}

type SignalListener = (signal: NodeJS.Signals) => void;

function stopOnSignals(runtime: Runtime): void {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    // `next start` registered its handler before instrumentation ran, and that handler exits the
    // process as soon as the HTTP server has closed: milliseconds, long before the loops end and
    // the connections and the store close. So the handlers already there run after the stop.
    const host = process.listeners(signal) as SignalListener[];
    for (const listener of host) process.removeListener(signal, listener);
    process.once(signal, () => {
      void runtime.stop().finally(() => {
        for (const listener of host) listener(signal);
        // With no other listener (a plain node process), restore the default: exit.
        if (host.length === 0 && process.listenerCount(signal) === 0) process.exit(0);
      });
    });
  }
}
