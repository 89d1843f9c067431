// What the child processes of the process-level tests share: a probe that sends nothing (the fake's
// addresses are documentation ranges) and the start that stops cleanly on SIGTERM.
import type { Runtime } from '@/server/runtime';

export const stubProbe = async () => ({ healthy: true, reason: 'ProxyAnswered' as const, message: 'stub', latencyMs: 1 });

/** Starts `runtime`, saying `started`; SIGTERM stops it, says `stopped` and exits 0. */
export async function startUntilSigterm(runtime: Runtime, say: (tag: string) => void): Promise<void> {
  process.once('SIGTERM', () => {
    void runtime.stop().then(() => {
      say('stopped');
      process.exit(0);
    });
  });
  await runtime.start();
  say('started');
}
