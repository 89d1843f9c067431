// Next.js calls register() once per server process: start the control plane there (Node.js
// runtime only; the module is imported lazily so the edge bundle never sees server code). Not
// during `next build`, whose workers also load this file.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  if (process.env.NEXT_PHASE === 'phase-production-build') return;
  const { startRuntimeOnce } = await import('./server/runtime');
  await startRuntimeOnce();
}
