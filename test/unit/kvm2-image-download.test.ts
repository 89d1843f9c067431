// The image transfer: a body that ends early, a daemon failing the upload, our own deadline and
// the caller giving up all leave no marker (the base goes too) and the next Create succeeds;
// concurrent Creates for one image on one host download once; progress is observable while the
// transfer runs; the whole fetch is one `kvm2.download` span.
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainState } from '@/server/libvirt';
import { errorClassOf } from '@/server/providers/errors';
import { startTracing, stopTracing } from '@/server/telemetry/tracing';
import { libvirtError } from '@/test/fakes/fake-libvirt';
import { makeHarness, TestMirror, testImage, testImageDigest } from './kvm2-fixture';

const mirror = new TestMirror();
const spans = new InMemorySpanExporter();
beforeAll(async () => {
  startTracing([new SimpleSpanProcessor(spans)]);
  await mirror.start();
});
afterAll(async () => {
  await stopTracing();
  await mirror.stop();
});

let counter = 0;
const nextDomain = () => `proxy-dl-${++counter}`;

function outcome(promise: Promise<unknown>) {
  return promise.then(
    () => undefined,
    (err: unknown) => err as Error,
  );
}

function expectNoCachedImage(harness: ReturnType<typeof makeHarness>): void {
  expect(harness.hypervisor.volume(harness.imageVolumes.marker)).toBeUndefined();
  expect(harness.hypervisor.volume(harness.imageVolumes.base)).toBeUndefined();
}

async function expectNextCreateSucceeds(harness: ReturnType<typeof makeHarness>): Promise<void> {
  const name = nextDomain();
  await harness.provider.create(harness.request(name));
  expect(harness.hypervisor.domains.get(name)?.state).toBe(DomainState.Running);
  expect(harness.hypervisor.volume(harness.imageVolumes.marker)?.content.toString()).toBe(testImageDigest);
}

describe('a transfer that does not finish leaves no marker', () => {
  it('a body that ends early is transient; the next Create fetches it whole', async () => {
    const harness = makeHarness({ mirror, imagePath: '/flaky.qcow2' });
    mirror.routes.set('/flaky.qcow2', (req, res) => {
      res.writeHead(200, { 'content-length': testImage.length });
      if (req.method === 'HEAD') return void res.end();
      res.write(testImage.subarray(0, 1000), () => res.destroy());
    });
    const error = await outcome(harness.provider.create(harness.request(nextDomain())));
    expect(errorClassOf(error)).toBe('transient');
    expect(error?.message).toContain(`${mirror.url}/flaky.qcow2`);
    expectNoCachedImage(harness);
    mirror.routes.set('/flaky.qcow2', (req, res) =>
      res.writeHead(200, { 'content-length': testImage.length }).end(req.method === 'HEAD' ? undefined : testImage),
    );
    await expectNextCreateSucceeds(harness);
  });

  it('libvirt failing the upload part way is transient; the fresh connection is closed; the next Create succeeds', async () => {
    const harness = makeHarness({ mirror });
    harness.hypervisor.uploadHook = ({ volume, receivedBytes }) => {
      if (volume === harness.imageVolumes.base && receivedBytes > 0) throw libvirtError('ErrInternalError', 'No space left on device');
    };
    const error = await outcome(harness.provider.create(harness.request(nextDomain())));
    expect(errorClassOf(error)).toBe('transient');
    expectNoCachedImage(harness);
    expect(harness.backend.freshCloses).toEqual(harness.backend.freshDials);
    harness.hypervisor.uploadHook = undefined;
    await expectNextCreateSucceeds(harness);
  });

  it('the pooled connection dying during the transfer: the marker goes over the redialled one and Create completes', async () => {
    const harness = makeHarness({ mirror });
    harness.hypervisor.uploadHook = ({ volume }) => {
      if (volume === harness.imageVolumes.base) harness.backend.pooledConnection('h1')?.kill('keepalive unanswered');
    };
    const name = nextDomain();
    await harness.provider.create(harness.request(name));
    expect(harness.backend.pooledDials).toBe(2);
    expect(harness.hypervisor.volume(harness.imageVolumes.marker)?.content.toString()).toBe(testImageDigest);
    expect(harness.hypervisor.domains.get(name)?.state).toBe(DomainState.Running);
  });

  it('a stalled mirror ends through the download deadline, a minute inside the transfer budget', async () => {
    const harness = makeHarness({ mirror, imagePath: '/stall.qcow2', budgets: { imageTransferMs: 60_000 + 300 } });
    const error = await outcome(harness.provider.create(harness.request(nextDomain())));
    expect(errorClassOf(error)).toBe('transient');
    expect(error?.message).toContain('300 ms deadline');
    expectNoCachedImage(harness);
  });

  it('the caller giving up mid-transfer leaves no marker, and the next Create succeeds', async () => {
    const harness = makeHarness({ mirror, imagePath: '/slow.qcow2' });
    let release: () => void = () => undefined;
    mirror.routes.set('/slow.qcow2', (req, res) => {
      res.writeHead(200, { 'content-length': testImage.length });
      if (req.method === 'HEAD') return void res.end();
      res.write(testImage.subarray(0, 4096));
      release = () => res.end(testImage.subarray(4096));
    });
    const controller = new AbortController();
    const create = outcome(harness.provider.create(harness.request(nextDomain()), { signal: controller.signal }));
    await expect.poll(() => harness.provider.downloads.list().some((entry) => entry.doneBytes > 0), { timeout: 5_000 }).toBe(true);
    controller.abort(new Error('reconcile cancelled'));
    const error = await create;
    expect(errorClassOf(error)).toBe('transient');
    expectNoCachedImage(harness);
    release();
    mirror.routes.set('/slow.qcow2', (req, res) =>
      res.writeHead(200, { 'content-length': testImage.length }).end(req.method === 'HEAD' ? undefined : testImage),
    );
    await expectNextCreateSucceeds(harness);
  });
});

describe('sharing one download', () => {
  it('concurrent Creates for one image on one host download it once', async () => {
    const harness = makeHarness({ mirror, imagePath: '/shared.qcow2' });
    mirror.routes.set('/shared.qcow2', (req, res) =>
      res.writeHead(200, { 'content-length': testImage.length }).end(req.method === 'HEAD' ? undefined : testImage),
    );
    const names = [nextDomain(), nextDomain(), nextDomain()];
    await Promise.all(names.map((name) => harness.provider.create(harness.request(name))));
    expect(mirror.gets('/shared.qcow2')).toBe(1);
    expect(harness.backend.freshDials).toHaveLength(1);
    for (const name of names) expect(harness.hypervisor.domains.get(name)?.state).toBe(DomainState.Running);
  });

  it('shows bytes, total and rate while the transfer runs, and forgets it afterwards', async () => {
    const harness = makeHarness({ mirror });
    const gate = harness.hypervisor.gate('storagePoolRefresh');
    const create = harness.provider.create(harness.request(nextDomain()));
    await gate.arrived;
    const [progress] = harness.provider.downloads.list();
    expect(progress).toMatchObject({
      host: 'h1',
      volume: harness.imageVolumes.base,
      urlHost: new URL(mirror.url).host,
      totalBytes: testImage.length,
      doneBytes: testImage.length,
    });
    gate.release();
    await create;
    expect(harness.provider.downloads.list()).toEqual([]);
  });

  it('the fetch is one kvm2.download span under provider.create, with host, volume, URL host, sha256 flag and bytes', async () => {
    spans.reset();
    const harness = makeHarness({ mirror, sha256: testImageDigest });
    await harness.provider.create(harness.request(nextDomain()));
    const finished = spans.getFinishedSpans();
    const download = finished.find((span) => span.name === 'kvm2.download');
    const create = finished.find((span) => span.name === 'provider.create');
    expect(download?.attributes).toEqual({
      'kvm2.host': 'h1',
      'kvm2.volume': harness.imageVolumes.base,
      'kvm2.url_host': new URL(mirror.url).host,
      'kvm2.sha256_configured': true,
      'kvm2.bytes': testImage.length,
    });
    expect(download?.parentSpanContext?.spanId).toBe(create?.spanContext().spanId);
    const attributes = JSON.stringify(finished.map((span) => span.attributes));
    expect(attributes).not.toContain('/image.qcow2');
  });
});
