// Create: converge on a running domain, from any point an earlier attempt stopped at.
//
// Placement is resolved before any host is dialled. The domain is looked up first: an existing
// one is only checked (its mark, its owner, its state) and started if it is off; its volumes are
// never touched. Without a domain nothing can be using the volumes yet, so: the pool-space
// precheck, the base image (cached or fetched), the overlay (reused when it exists: creating it
// is atomic), the seed (always deleted and rebuilt, because an attempt cut off mid-upload leaves
// a truncated seed that would boot the VM without cloud-init), then define, start and wait for
// running. Create and Delete of one name are serialised on a per-name lock.
import { isLibvirtError, type Domain, type StoragePool, type StorageVol } from '@/server/libvirt';
import type { CallOptions, CreateRequest, Instance } from '@/server/providers/contract';
import { ErrPermanent, ErrTransient } from '@/server/providers/errors';
import type { Logger } from '@/server/telemetry/logger';
import { instanceLogger, sleep, type Kvm2Context } from './context';
import { domainStateName, existingDomainAction, failsRightAfterStart, isRunningState, lookupDomain, readMark } from './domain';
import { imageContentLength } from './image-fetch';
import { cachedImage, checkPoolSpace, ensureImage, lookupVolume, neededBytes, runningPoolInfo, type CacheTarget } from './image';
import { imageLockKey } from './keyed-lock';
import type { LibvirtAPI } from './libvirt-api';
import { formatCreated } from './metadata';
import { resolvePlacement, type ResolvedPlacement } from './placement';
import { formatProviderID } from './provider-id';
import { buildSeedISO } from './seed';
import { resolveVirtType } from './virt-type';
import { overlayVolumeName, overlayVolumeXML, seedVolumeName, seedVolumeXML } from './volume';
import { buildDomainXML } from './xml';

interface Attempt {
  context: Kvm2Context;
  request: CreateRequest;
  placement: ResolvedPlacement;
  api: LibvirtAPI;
  logger: Logger;
  signal?: AbortSignal;
}

/** A same-named domain is this Proxy's only when it carries kvm2's mark with its uid (or none). */
async function checkOwnership(attempt: Attempt, dom: Domain): Promise<void> {
  const { api, request, signal } = attempt;
  const mark = await readMark(api, dom, signal);
  if (!mark) throw new ErrPermanent(`domain ${JSON.stringify(dom.name)} carries no kvm2 mark; it was not created by this provider`);
  if (mark.uid !== '' && mark.uid !== request.uid) {
    throw new ErrPermanent(`domain ${JSON.stringify(dom.name)} belongs to Proxy UID ${mark.uid}, not to ${request.uid}`);
  }
}

/** Polls until running; a domain that stops, crashes or pauses right after its start fails at once. */
async function waitForRunning(attempt: Attempt, dom: Domain): Promise<void> {
  const { api, context, signal } = attempt;
  const { runningWaitMs, runningPollMs } = context.budgets;
  const deadline = performance.now() + runningWaitMs;
  for (;;) {
    const { state } = await api.domainGetState({ dom, signal });
    if (isRunningState(state)) return;
    if (failsRightAfterStart.has(state)) {
      throw new ErrTransient(`domain ${JSON.stringify(dom.name)} is ${domainStateName(state)} right after its start`);
    }
    if (performance.now() >= deadline) {
      throw new ErrTransient(`domain ${JSON.stringify(dom.name)} did not reach running within ${runningWaitMs} ms (still ${domainStateName(state)})`);
    }
    await sleep(runningPollMs, signal);
  }
}

async function start(attempt: Attempt, dom: Domain): Promise<void> {
  await attempt.api.domainCreate({ dom, signal: attempt.signal });
  attempt.logger.debug({}, 'domain started');
  attempt.request.onStarted?.(formatProviderID({ host: attempt.placement.host.name, domain: dom.name }));
  await waitForRunning(attempt, dom);
}

/** A repeat Create for a domain that exists: checked, then started if it is off. */
async function ensureExisting(attempt: Attempt, dom: Domain): Promise<void> {
  await checkOwnership(attempt, dom);
  const { state } = await attempt.api.domainGetState({ dom, signal: attempt.signal });
  attempt.logger.debug({ state: domainStateName(state) }, 'kvm2 domain already defined');
  const action = existingDomainAction[state] ?? 'wait';
  if (action === 'refuse') {
    throw new ErrPermanent(
      `domain ${JSON.stringify(dom.name)} is ${domainStateName(state)} and cannot be started by the operator; resume or destroy it on the host`,
    );
  }
  if (action === 'start') await start(attempt, dom);
  else if (action === 'wait') await waitForRunning(attempt, dom);
}

/** The overlay backed by the base file; one left by an earlier attempt is reused. */
async function ensureOverlay(attempt: Attempt, pool: StoragePool, basePath: string): Promise<StorageVol> {
  const { api, request, placement, context, signal } = attempt;
  const xml = overlayVolumeXML({
    domain: request.name,
    diskSizeGb: context.settings.diskSizeGb,
    basePath,
    baseFormat: placement.image.format,
  });
  try {
    const overlay = await api.storageVolCreateXml({ pool, xml, signal });
    attempt.logger.debug({ volume: overlay.name }, 'overlay volume created');
    return overlay;
  } catch (err) {
    if (!isLibvirtError(err, 'ErrStorageVolExist')) throw err;
    return api.storageVolLookupByName({ pool, name: overlayVolumeName(request.name), signal });
  }
}

/** The seed, always rebuilt: a leftover one may be truncated. */
async function rebuildSeed(attempt: Attempt, pool: StoragePool): Promise<StorageVol> {
  const { api, request, context, signal } = attempt;
  const iso = buildSeedISO({
    domain: request.name,
    cloudInit: request.cloudInit,
    vendorData: context.settings.vendorData,
    installGuestAgent: context.settings.installGuestAgent,
    created: context.now(),
  });
  const xml = seedVolumeXML({ domain: request.name, sizeBytes: iso.length });
  const leftover = await lookupVolume(api, pool, seedVolumeName(request.name), signal);
  if (leftover) await api.storageVolDelete({ vol: leftover, signal });
  const seed = await api.storageVolCreateXml({ pool, xml, signal });
  await api.storageVolUpload({ vol: seed, source: once(iso), length: iso.length, signal });
  attempt.logger.debug({ volume: seed.name, bytes: iso.length }, 'seed volume uploaded');
  return seed;
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

/** The precheck, then the base image: the image's size counts only while it is not cached. */
async function prepareBase(attempt: Attempt, pool: StoragePool): Promise<StorageVol> {
  const { api, context, placement, signal } = attempt;
  const { host, image } = placement;
  const info = await runningPoolInfo({ api, host: host.name, pool, signal });
  const target: CacheTarget = { api, host: host.name, pool, image, logger: attempt.logger, signal };
  const state = await cachedImage(target);
  const imageBytes = state.kind === 'cached' ? 0 : await imageContentLength(image.url, { signal, timeoutMs: context.budgets.headMs });
  checkPoolSpace({ host: host.name, pool: pool.name, info, needed: neededBytes({ imageBytes, diskSizeGb: context.settings.diskSizeGb }) });
  const imageContext = { backend: context.backend, budgets: context.budgets, tracker: context.downloads };
  return ensureImage(imageContext, target, state);
}

/**
 * The base (its header checked: when cached, by cachedImage; when downloaded, on the way in) and
 * this domain's overlay on it, under the image lock of (host, base volume)
 * from the cache check to the overlay: concurrent Creates download once, and an eviction, which
 * refuses while the lock is held, cannot take the base before the overlay backs onto it.
 */
async function prepareDisk(attempt: Attempt, pool: StoragePool): Promise<{ api: LibvirtAPI; basePath: string; overlay: StorageVol }> {
  const { context, placement, signal } = attempt;
  const { host, image } = placement;
  return context.imageLocks.run(
    imageLockKey(host.name, image.baseVolume),
    async () => {
      const base = await prepareBase(attempt, pool);
      // After a download, the pooled connection may have been redialled; pick up the live one.
      const api = await context.backend.pooled(host.name, { signal });
      const basePath = await api.storageVolGetPath({ vol: base, signal });
      const overlay = await ensureOverlay({ ...attempt, api }, pool, basePath);
      return { api, basePath, overlay };
    },
    signal,
  );
}

/** Everything a new domain needs, then the domain itself, started. */
async function build(attempt: Attempt): Promise<void> {
  const { context, request, placement, logger, signal } = attempt;
  const { host, image, machineType } = placement;
  logger.trace(
    {
      pool: host.pool,
      bridge: host.bridge,
      machineType: placement.machineTypeName,
      vcpus: machineType.vcpus,
      memoryMiB: machineType.memoryMiB,
      diskSizeGb: context.settings.diskSizeGb,
      imageVolume: image.baseVolume,
      firmware: image.firmware,
      cloudInitBytes: typeof request.cloudInit === 'string' ? Buffer.byteLength(request.cloudInit) : request.cloudInit.length,
    },
    'kvm2 create resolved',
  );
  const pool = await attempt.api.storagePoolLookupByName({ name: host.pool, signal });
  const { api, basePath, overlay } = await prepareDisk(attempt, pool);
  const afterImage: Attempt = { ...attempt, api };
  const overlayPath = await api.storageVolGetPath({ vol: overlay, signal });
  const seed = await rebuildSeed(afterImage, pool);
  const seedPath = await api.storageVolGetPath({ vol: seed, signal });
  const virtType = await resolveVirtType(api, { host, logger, signal, detected: context.virtTypes });
  const xml = buildDomainXML({
    name: request.name,
    virtType,
    memoryMiB: machineType.memoryMiB,
    vcpus: machineType.vcpus,
    firmware: image.firmware,
    overlayPath,
    base: { path: basePath, format: image.format },
    seedPath,
    bridge: host.bridge,
    metadata: { managed: true, uid: request.uid, created: formatCreated(context.now()) },
  });
  const dom = await api.domainDefineXmlFlags({ xml, signal });
  const defined = { uid: request.uid, firmware: image.firmware };
  if (logger.isLevelEnabled('trace')) logger.trace({ ...defined, xml }, 'domain defined');
  else logger.debug(defined, 'domain defined');
  await start(afterImage, dom);
}

/** Create as the contract asks: idempotent, converging, never NotFound (provider.ts classifies). */
export async function createInstance(context: Kvm2Context, request: CreateRequest, options: CallOptions = {}): Promise<Instance> {
  // Everything that can be refused without a host is refused before dialling one.
  const placement = resolvePlacement(context.settings, request.placement);
  const providerID = formatProviderID({ host: placement.host.name, domain: request.name });
  const logger = instanceLogger(context, placement.host, request.name);
  const { signal } = options;
  await context.domainLocks.run(
    request.name,
    async () => {
      const api = await context.backend.pooled(placement.host.name, { signal });
      const attempt: Attempt = { context, request, placement, api, logger, signal };
      const existing = await lookupDomain(api, request.name, signal);
      if (existing) await ensureExisting(attempt, existing);
      else await build(attempt);
    },
    signal,
  );
  return { providerID, host: placement.host.name, name: request.name, state: 'Provisioning', uid: request.uid };
}
