// Next.js calls register() once per server process: stamp every request with its connection's
// addresses, check APP_ORIGIN and TRUST_PROXY, and start the control plane (whose start applies
// ADMIN_PASSWORD, or logs the first-start setup code, before any request). Node.js runtime only;
// the modules are imported lazily so the edge bundle never sees server code. Not during
// `next build`, whose workers also load this file.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  if (process.env.NEXT_PHASE === 'phase-production-build') return;
  const { installConnectionStamp } = await import('./server/http/connection');
  installConnectionStamp();
  const { announceExposure } = await import('./server/http/exposure-log');
  announceExposure();
  const { startRuntimeOnce } = await import('./server/runtime');
  await startRuntimeOnce();
}
