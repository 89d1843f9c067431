// The base-image cache in a host's pool, and the pool-space precheck that guards it.
//
// The pool is the only cache state: a base volume is complete when its marker (a 64-byte raw
// volume holding the digest) exists, because the marker is written last. A base without a marker
// is a download that was cut off; a marker that is not a digest is damage; both are refetched.
// A configured sha256 that differs from a cached marker is refused by name and never resolved by
// replacing the file: overlays back onto it, and libvirt unlinks it under running guests.
//
// The bytes stream from the mirror into StorageVolUpload on a connection of their own (a
// cancelled call elsewhere kills the pooled one, which must not cut off a 20-minute transfer);
// the refresh and the marker then go over the pooled connection.
import { SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { isLibvirtError, StoragePoolState, type StoragePool, type StoragePoolInfo, type StorageVol } from '@/server/libvirt';
import { ErrPermanent, ErrQuotaExceeded, ErrTransient } from '@/server/providers/errors';
import type { Logger } from '@/server/telemetry/logger';
import { redactUrl } from '@/server/telemetry/redact-url';
import { tracer } from '@/server/telemetry/tracing';
import type { Budgets } from './backend';
import type { DownloadTracker } from './download-progress';
import { captureHead, describeExternalFiles, externalFiles, headerBytes } from './image-header';
import { openImageStream, type ImageStream } from './image-fetch';
import type { ResolvedImage } from './image-resolve';
import type { HostBackend, LibvirtAPI } from './libvirt-api';
import { baseVolumeXML, diskSizeBytes, markerSizeBytes, markerVolumeXML } from './volume';
import { errorMessage } from '@/lib/error-message';

/** Room kept for the seed ISO, whatever its real size (tens of KiB). */
export const seedReserveBytes = 16 * 1024 * 1024;

/** The download ends this long before the transfer budget, through its body rather than a killed socket. */
const downloadMarginMs = 60_000;

const digestPattern = /^[0-9a-f]{64}$/;

export type CacheState =
  | { kind: 'cached'; base: StorageVol; digest: string }
  | { kind: 'missing' }
  /** a base that must be refetched: no marker, or a marker that is not a digest */
  | { kind: 'incomplete'; base: StorageVol; reason: string };

export interface CacheTarget {
  api: LibvirtAPI;
  /** the configured host name */
  host: string;
  pool: StoragePool;
  image: ResolvedImage;
  /** carries `host` (and `name`, the domain the image is fetched for) */
  logger: Logger;
  signal?: AbortSignal;
}

export interface ImageCacheContext {
  backend: HostBackend;
  budgets: Budgets;
  tracker: DownloadTracker;
}

/** The volume, or undefined when the pool has none of that name. */
export async function lookupVolume(api: LibvirtAPI, pool: StoragePool, name: string, signal?: AbortSignal): Promise<StorageVol | undefined> {
  try {
    return await api.storageVolLookupByName({ pool, name, signal });
  } catch (err) {
    if (isLibvirtError(err, 'ErrNoStorageVol')) return undefined;
    throw err;
  }
}

async function readMarker(api: LibvirtAPI, marker: StorageVol, signal?: AbortSignal): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of api.storageVolDownload({ vol: marker, length: markerSizeBytes, signal })) chunks.push(chunk);
  return Buffer.concat(chunks).toString('latin1').trim();
}

/** What the pool holds for `image`; refuses (permanently) a configured sha256 the cached copy does not match. */
export async function cachedImage(target: CacheTarget): Promise<CacheState> {
  const { api, pool, image, signal } = target;
  const base = await lookupVolume(api, pool, image.baseVolume, signal);
  const marker = await lookupVolume(api, pool, image.markerVolume, signal);
  if (!base) {
    // A marker without its base (evicted in the wrong order) is cleaned up.
    if (marker) await api.storageVolDelete({ vol: marker, signal });
    return { kind: 'missing' };
  }
  if (!marker) return { kind: 'incomplete', base, reason: 'the base image has no marker (an earlier download did not finish)' };
  // Both reads at once: each is a stream for which libvirtd starts a helper (~45 ms apiece on lab1).
  const [markerRead, headerRead] = await Promise.allSettled([readMarker(api, marker, signal), readHeader(api, base, signal)]);
  if (markerRead.status === 'rejected') throw markerRead.reason;
  const digest = markerRead.value;
  if (!digestPattern.test(digest)) return { kind: 'incomplete', base, reason: 'the marker does not hold a sha256 digest' };
  if (image.sha256 !== undefined && image.sha256 !== digest) {
    throw new ErrPermanent(
      `base image ${image.baseVolume} on host ${target.host} is cached with sha256 ${digest}, but images.${image.key}.sha256 is now ${image.sha256}; ` +
        `refusing to replace a base that overlays may back onto: add the image under a new key, or delete the Proxies using it and evict the base by hand (marker first)`,
    );
  }
  // Checked again on every use: a base cached by an older version was never checked.
  if (headerRead.status === 'rejected') throw headerRead.reason;
  requireSelfContained(target, { header: headerRead.value, advice: `${selfContainedAdvice}; evict this base (marker first) once no Proxy uses it` });
  return { kind: 'cached', base, digest };
}

/** Bytes a Create is about to commit: the image when not cached, the overlay, and the seed's reserve. */
export function neededBytes(options: { imageBytes: number; diskSizeGb: number }): number {
  return options.imageBytes + diskSizeBytes(options.diskSizeGb) + seedReserveBytes;
}

/** The pool's info; a pool that is not running fails permanently, since no retry will start it. */
export async function runningPoolInfo(target: { api: LibvirtAPI; host: string; pool: StoragePool; signal?: AbortSignal }): Promise<StoragePoolInfo> {
  const info = await target.api.storagePoolGetInfo({ pool: target.pool, signal: target.signal });
  if (info.state !== StoragePoolState.Running) {
    throw new ErrPermanent(
      `storage pool is not running (pool ${JSON.stringify(target.pool.name)} on host ${target.host}); start it with virsh pool-start and pool-autostart`,
    );
  }
  return info;
}

/** ErrQuotaExceeded naming the pool and both byte counts when the pool cannot hold `needed`. */
export function checkPoolSpace(options: { host: string; pool: string; info: StoragePoolInfo; needed: number }): void {
  const { info, needed } = options;
  if (info.available >= needed) return;
  throw new ErrQuotaExceeded(
    `storage pool ${JSON.stringify(options.pool)} on host ${options.host} has ${info.available} bytes available, ${needed} needed; free up the pool or lower diskSizeGb`,
  );
}

/** Removes a partial base, on a live pooled connection; failing that, the next attempt finds it without a marker. */
async function deleteQuietly(context: ImageCacheContext, target: CacheTarget, volume: StorageVol): Promise<void> {
  try {
    const api = await context.backend.pooled(target.host);
    await api.storageVolDelete({ vol: volume });
  } catch (err) {
    target.logger.debug({ volume: volume.name, error: errorMessage(err) }, 'could not remove a partial base image');
  }
}

/** Streams the mirror's body into the base volume on a fresh connection, closed afterwards; returns the image's first bytes. */
async function uploadImage(context: ImageCacheContext, target: CacheTarget, upload: { base: StorageVol; stream: ImageStream }): Promise<Buffer> {
  const fresh = await context.backend.fresh(target.host, { signal: target.signal });
  const captured = captureHead(upload.stream.body);
  try {
    // length 0 ("to the end") gives the call the image-transfer budget; the length and digest
    // checks afterwards catch a short body.
    await fresh.api.storageVolUpload({ vol: upload.base, source: captured.body, length: 0 });
    return captured.head();
  } finally {
    await fresh.close();
  }
}

const selfContainedAdvice = 'a cloud image must be self-contained (qemu-img convert -O qcow2 makes one)';

/**
 * Refuses (permanently, naming the file) a base whose qcow2 header names a backing file or an
 * external data file: QEMU would open that host file and libvirt would re-own it.
 */
function requireSelfContained(target: Pick<CacheTarget, 'host' | 'image'>, check: { header: Uint8Array; advice: string }): void {
  const files = externalFiles(check.header);
  if (files.length === 0) return;
  const { image, host } = target;
  throw new ErrPermanent(
    `base image ${image.baseVolume} on host ${host} (from ${redactUrl(image.url)}) names a ${describeExternalFiles(files)} in its qcow2 header; ` +
      `refusing it, since QEMU would open that host file: ${check.advice}`,
  );
}

async function readHeader(api: LibvirtAPI, base: StorageVol, signal?: AbortSignal): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of api.storageVolDownload({ vol: base, length: headerBytes, signal })) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function* bytesOf(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

/** Why the bytes that arrived are not the image, or undefined when they are. */
function transferProblem(stream: ImageStream, image: ResolvedImage): ErrPermanent | ErrTransient | undefined {
  const failure = stream.sourceError();
  const received = `${stream.bytesRead()} of ${stream.contentLength} bytes`;
  if (failure !== undefined) {
    const reason = errorMessage(failure);
    return new ErrTransient(`downloading ${redactUrl(image.url)} stopped after ${received}: ${reason}`, { cause: failure });
  }
  if (stream.bytesRead() !== stream.contentLength) {
    return new ErrTransient(`downloading ${redactUrl(image.url)} ended early: ${received}`);
  }
  const digest = stream.sha256();
  if (image.sha256 !== undefined && digest !== image.sha256) {
    return new ErrPermanent(`image ${redactUrl(image.url)} has sha256 ${digest}, but images.${image.key}.sha256 is ${image.sha256}`);
  }
  return undefined;
}

async function writeMarker(target: CacheTarget, digest: string): Promise<void> {
  const { api, pool, image } = target;
  await api.storagePoolRefresh({ pool });
  const stale = await lookupVolume(api, pool, image.markerVolume);
  if (stale) await api.storageVolDelete({ vol: stale });
  const marker = await api.storageVolCreateXml({ pool, xml: markerVolumeXML(image.baseVolume) });
  const bytes = Buffer.from(digest, 'latin1');
  await api.storageVolUpload({ vol: marker, source: bytesOf(bytes), length: bytes.length });
}

async function downloadInto(context: ImageCacheContext, target: CacheTarget, span: Span): Promise<StorageVol> {
  const { image, host, logger } = target;
  const started = performance.now();
  let progress: ((bytes: number) => void) | undefined;
  const stream = await openImageStream(image.url, {
    signal: target.signal,
    deadlineMs: context.budgets.imageTransferMs - downloadMarginMs,
    onBytes: (bytes) => progress?.(bytes),
  });
  span.setAttribute('kvm2.bytes', stream.contentLength);
  logger.debug({ volume: image.baseVolume, url: redactUrl(image.url), size: stream.contentLength }, 'fetching base image into host pool');
  progress = context.tracker.start({ host, volume: image.baseVolume, urlHost: new URL(image.url).host, totalBytes: stream.contentLength });
  let base: StorageVol | undefined;
  try {
    const xml = baseVolumeXML({ name: image.baseVolume, sizeBytes: stream.contentLength });
    base = await target.api.storageVolCreateXml({ pool: target.pool, xml });
    const header = await uploadImage(context, target, { base, stream });
    const problem = transferProblem(stream, image);
    if (problem) throw problem;
    // Before the refresh and the marker: a base that names other host files is never cached.
    requireSelfContained(target, { header, advice: selfContainedAdvice });
    const digest = stream.sha256();
    // A long transfer may have outlived the pooled connection the Create started on; the refresh
    // and the marker go over whichever pooled connection is alive now (redialled if need be).
    await writeMarker({ ...target, api: await context.backend.pooled(host, { signal: target.signal }) }, digest);
    const durationMs = Math.round(performance.now() - started);
    logger.debug({ volume: image.baseVolume, size: stream.contentLength, durationMs, sha256: digest }, 'base image cached');
    return base;
  } catch (err) {
    stream.abort(err);
    if (base) await deleteQuietly(context, target, base);
    throw err;
  } finally {
    context.tracker.finish(host, image.baseVolume);
  }
}

/** fetchImage inside the `kvm2.download` span. */
function fetchImage(context: ImageCacheContext, target: CacheTarget): Promise<StorageVol> {
  const attributes = {
    'kvm2.host': target.host,
    'kvm2.volume': target.image.baseVolume,
    'kvm2.url_host': new URL(target.image.url).host,
    'kvm2.sha256_configured': target.image.sha256 !== undefined,
  };
  return tracer().startActiveSpan('kvm2.download', { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      return await downloadInto(context, target, span);
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(err) });
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * The base volume of `image`, downloading it first when `state` (read under the lock) found no
 * complete copy. Call under the image lock of (host, base volume): concurrent Creates then fetch
 * once, and an eviction is refused while a Create holds it.
 */
export async function ensureImage(context: ImageCacheContext, target: CacheTarget, state: CacheState): Promise<StorageVol> {
  if (state.kind === 'cached') return state.base;
  if (state.kind === 'incomplete') {
    target.logger.debug({ volume: target.image.baseVolume, reason: state.reason }, 'image marker forces a refetch');
    const marker = await lookupVolume(target.api, target.pool, target.image.markerVolume, target.signal);
    if (marker) await target.api.storageVolDelete({ vol: marker, signal: target.signal });
    await target.api.storageVolDelete({ vol: state.base, signal: target.signal });
  }
  return fetchImage(context, target);
}
