// The server's SSH identity for a kvm2 entry: the public half of its key file, as Settings shows it,
// and the pair generated when the file is missing (never replaced). Nothing here answers or logs
// the private key: only the public key and its fingerprint.
import { errorMessage } from '@/lib/error-message';
import { generateKeyPair, publicIdentity, type PublicIdentity } from '@/server/ssh/key-pair';
import type { Logger } from '@/server/telemetry/logger';
import { HostSetupRefusedError } from '../errors';

export interface IdentityView {
  provider?: string;
  exists: boolean;
  publicKey?: string;
  keyType?: string;
  fingerprint?: string;
  problem?: string;
}

/** The key file's public identity; `exists: false` when there is no file yet. */
export async function identityOf(keyFile: string, provider?: string): Promise<IdentityView> {
  const base = provider ? { provider } : {};
  try {
    return { ...base, exists: true, ...(await publicIdentity(keyFile)) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ...base, exists: false };
    return { ...base, exists: true, problem: `the key file does not parse: ${errorMessage(err)}` };
  }
}

/** Generates the pair `keyFile` names; refused when the file exists. */
export async function generateIdentity(options: { keyFile: string; provider: string | undefined; logger: Logger }): Promise<IdentityView> {
  const { keyFile, provider } = options;
  let identity: PublicIdentity;
  try {
    identity = await generateKeyPair(keyFile);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST')
      throw new HostSetupRefusedError('ERR_HOST_SETUP_CONFLICT', 'the configured key file exists already; it is never replaced from the dashboard');
    throw err;
  }
  options.logger.info({ provider, fingerprint: identity.fingerprint }, 'ssh identity generated');
  return { ...(provider ? { provider } : {}), exists: true, ...identity };
}
