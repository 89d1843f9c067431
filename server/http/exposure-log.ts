// The start's line about how the server may be reached: which browser origins it accepts and
// which proxies it trusts. A bad APP_ORIGIN or TRUST_PROXY stops the start here, naming the variable.
import { logger as childLogger } from '@/server/telemetry/logger';
import { exposureFromEnv } from './exposure';

export function announceExposure(env: Record<string, string | undefined> = process.env): void {
  const exposure = exposureFromEnv(env);
  childLogger('http').info(
    {
      appOrigins: exposure.appOrigins ?? 'the address each connection reached, and localhost, on the listening port',
      trustedProxies: exposure.trustedProxies.entries,
    },
    exposure.appOrigins
      ? 'accepting browser requests from APP_ORIGIN'
      : 'APP_ORIGIN is not set: accepting browser requests only for the addresses this server listens on',
  );
}
