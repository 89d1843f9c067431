// kvm2's console capability (server/providers/instance-console.ts): a managed domain's serial
// console through DOMAIN_OPEN_CONSOLE on the host's pooled connection. Only domains carrying
// kvm2's mark are opened; FORCE only when the caller asks for it, so an admin's `virsh console`
// is never taken silently (libvirt's ConsoleBusyError becomes the contract's, naming the host).
import { ConsoleBusyError as LibvirtConsoleBusyError, DomainConsoleFlags, type DuplexStream } from '@/server/libvirt';
import { ErrNotFound, ErrPermanent } from '@/server/providers/errors';
import { ConsoleBusyError, type ConsoleSession, type InstanceConsole, type OpenConsoleOptions } from '@/server/providers/instance-console';
import { instanceLogger, type Kvm2Context } from './context';
import { lookupDomain, readMark } from './domain';
import { classify } from './errors';
import { configuredHost } from './kvm2';
import { parseProviderID } from './provider-id';

/** How long a release waits for libvirtd to confirm before abandoning the stream. */
const releaseTimeoutMs = 5_000;

export function kvm2InstanceConsole(context: Kvm2Context): InstanceConsole {
  return {
    open: async (providerID, options = {}) => {
      try {
        return await openConsole(context, providerID, options);
      } catch (err) {
        if (err instanceof ConsoleBusyError) throw err;
        throw classify(err, { op: 'console' });
      }
    },
  };
}

async function openConsole(context: Kvm2Context, providerID: string, options: OpenConsoleOptions): Promise<ConsoleSession> {
  const address = parseProviderID(providerID);
  const host = configuredHost(context.settings, address.host);
  if (!host) throw new ErrPermanent(`providerID ${providerID} names host ${JSON.stringify(address.host)}, which is not in kvm2.hosts`);
  const { signal } = options;
  const logger = instanceLogger(context, host, address.domain);
  const api = await context.backend.pooled(host.name, { signal });
  const dom = await lookupDomain(api, address.domain, signal);
  if (!dom) throw new ErrNotFound(`domain ${JSON.stringify(address.domain)} not found on host ${host.name}`);
  const mark = await readMark(api, dom, signal);
  if (!mark?.managed)
    throw new ErrPermanent(`domain ${JSON.stringify(address.domain)} on host ${host.name} is not managed by this provider; its console stays closed`);
  let stream: DuplexStream;
  try {
    stream = await api.domainOpenConsole({ dom, flags: options.force ? DomainConsoleFlags.Force : 0, signal });
  } catch (err) {
    if (err instanceof LibvirtConsoleBusyError) throw new ConsoleBusyError(host.name, address.domain, { cause: err });
    throw err;
  }
  logger.info({ force: options.force === true }, 'kvm2 console opened');
  return {
    output: stream.output,
    send: (data) => stream.send(data),
    close: async () => {
      try {
        await stream.finish({ timeoutMs: releaseTimeoutMs });
      } catch {
        // Already broken, or libvirtd did not confirm in time: abandon it; the device is let go either way.
        stream.abort();
      }
      logger.debug({}, 'kvm2 console released');
    },
  };
}
