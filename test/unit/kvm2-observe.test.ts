// The per-RPC decorator: a `kvm2.<Rpc>` client span with the identifiers the call named, error
// status and kvm2.libvirt_code on failure, one `libvirt call` line written inside the span (its
// spanID is the span's), detail only at trace level, and never a transfer body. Plus the
// `kvm2.dial` span the host backend opens around a dial.
import { connect } from 'node:net';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import type { StorageVol } from '@/server/libvirt';
import { createHostBackend } from '@/server/providers/kvm2/hosts';
import type { LibvirtAPI } from '@/server/providers/kvm2/libvirt-api';
import { observe } from '@/server/providers/kvm2/observe';
import { SshDialError } from '@/server/ssh';
import { tracer } from '@/server/telemetry/tracing';
import { libvirtError } from '@/test/fakes/fake-hypervisor';
import { kvm2Settings } from '@/test/fakes/kvm2-settings';
import { startFakeLibvirtd } from './kvm2-fake-libvirtd';
import { captureSpans } from './span-capture';
import { Resources } from './ssh-harness';
import { captureLogs } from '@/test/support/log-capture';

const exporter = captureSpans();
const resources = new Resources();
afterEach(() => resources.cleanup());

function capture(level: string) {
  const { lines, logger } = captureLogs(level);
  return { lines, logger: logger.child({ provider: 'kvm2-home', host: 'beelink' }) };
}

const uuid = Buffer.alloc(16, 3);
const vol: StorageVol = { pool: 'default', name: 'proxy-a-seed.iso', key: '/var/lib/libvirt/images/proxy-a-seed.iso' };
const cloudInitSecret = '#cloud-config\npassword: hunter2-SECRET-MARKER\n';
const noDomain = libvirtError('ErrNoDomain', "Domain not found: no domain with matching name 'ghost'", 'domainLookupByName');

// Only what these tests call; the rest of the API is never reached.
const fakeApi = {
  domainLookupByName: async ({ name }: { name: string }) => {
    if (name === 'ghost') throw noDomain;
    return { name, uuid, id: 1 };
  },
  domainDefineXmlFlags: async () => ({ name: 'proxy-a', uuid, id: -1 }),
  storageVolLookupByName: async (target: { pool: { name: string }; name: string }) => ({ pool: target.pool.name, name: target.name, key: 'k' }),
  storageVolCreateXml: async () => vol,
  storageVolGetPath: async () => vol.key,
  storageVolUpload: async (options: { vol: StorageVol; source: AsyncIterable<Uint8Array> }) => {
    let bytesSent = 0;
    for await (const chunk of options.source) bytesSent += chunk.length;
    return { bytesSent };
  },
  storageVolDownload: () =>
    (async function* () {
      yield Buffer.from(cloudInitSecret);
    })(),
} as unknown as LibvirtAPI;

const spanNamed = (name: string): ReadableSpan => {
  const span = exporter.getFinishedSpans().find((candidate) => candidate.name === name);
  if (!span)
    throw new Error(
      `no span ${name}; have ${exporter
        .getFinishedSpans()
        .map((s) => s.name)
        .join(', ')}`,
    );
  return span;
};

describe('a span per RPC', () => {
  it('is a client span named after the RPC, with the host and the identifiers it was given', async () => {
    const api = observe(fakeApi, { host: 'beelink', logger: capture('debug').logger });
    await api.domainLookupByName({ name: 'proxy-a' });
    await api.storageVolLookupByName({ pool: { name: 'default', uuid }, name: 'proxy-a.qcow2' });

    const lookup = spanNamed('kvm2.DomainLookupByName');
    expect(lookup.kind).toBe(SpanKind.CLIENT);
    expect(lookup.attributes).toEqual({ 'kvm2.host': 'beelink', 'kvm2.domain': 'proxy-a' });
    expect(lookup.status.code).toBe(SpanStatusCode.UNSET);
    expect(spanNamed('kvm2.StorageVolLookupByName').attributes).toEqual({
      'kvm2.host': 'beelink',
      'kvm2.pool': 'default',
      'kvm2.volume': 'proxy-a.qcow2',
    });
  });

  it('names what only the result knows: the domain defined, the volume created', async () => {
    const api = observe(fakeApi, { host: 'beelink', logger: capture('debug').logger });
    await api.domainDefineXmlFlags({ xml: '<domain/>' });
    await api.storageVolCreateXml({ pool: { name: 'default', uuid }, xml: '<volume/>' });
    expect(spanNamed('kvm2.DomainDefineXMLFlags').attributes['kvm2.domain']).toBe('proxy-a');
    expect(spanNamed('kvm2.StorageVolCreateXML').attributes).toMatchObject({ 'kvm2.pool': 'default', 'kvm2.volume': 'proxy-a-seed.iso' });
  });

  it("on failure has status Error and libvirt's error number", async () => {
    const { lines, logger } = capture('debug');
    const api = observe(fakeApi, { host: 'beelink', logger });
    await expect(api.domainLookupByName({ name: 'ghost' })).rejects.toBe(noDomain);

    const span = spanNamed('kvm2.DomainLookupByName');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes['kvm2.libvirt_code']).toBe(42);
    expect(lines.find((line) => line.msg === 'libvirt call')).toMatchObject({
      rpc: 'DomainLookupByName',
      domain: 'ghost',
      error: noDomain.message,
      libvirtCode: 42,
      libvirtError: 'ErrNoDomain',
    });
  });

  it('is a child of the operation span it runs in', async () => {
    const api = observe(fakeApi, { host: 'beelink', logger: capture('debug').logger });
    await tracer().startActiveSpan('provider.get', async (operation) => {
      await api.domainLookupByName({ name: 'proxy-a' });
      operation.end();
    });
    expect(spanNamed('kvm2.DomainLookupByName').parentSpanContext?.spanId).toBe(spanNamed('provider.get').spanContext().spanId);
  });
});

describe('the `libvirt call` line', () => {
  it("is written inside the span: its spanID and traceID are the span's", async () => {
    const { lines, logger } = capture('debug');
    const api = observe(fakeApi, { host: 'beelink', logger });
    await api.domainLookupByName({ name: 'proxy-a' });

    const span = spanNamed('kvm2.DomainLookupByName');
    const line = lines.find((candidate) => candidate.msg === 'libvirt call');
    expect(line).toMatchObject({
      level: 20,
      provider: 'kvm2-home',
      host: 'beelink',
      rpc: 'DomainLookupByName',
      domain: 'proxy-a',
      spanID: span.spanContext().spanId,
      traceID: span.spanContext().traceId,
    });
    expect(typeof line?.duration).toBe('number');
    expect(trace.getActiveSpan()).toBeUndefined();
  });

  it('carries detail only when trace is enabled', async () => {
    const debug = capture('debug');
    await observe(fakeApi, { host: 'beelink', logger: debug.logger }).storageVolGetPath({ vol });
    expect(debug.lines[0]).not.toHaveProperty('path');

    const detailed = capture('trace');
    await observe(fakeApi, { host: 'beelink', logger: detailed.logger }).storageVolGetPath({ vol });
    await observe(fakeApi, { host: 'beelink', logger: detailed.logger }).domainDefineXmlFlags({ xml: '<domain><name>proxy-a</name></domain>' });
    expect(detailed.lines[0]).toMatchObject({ rpc: 'StorageVolGetPath', path: vol.key, level: 20 });
    expect(detailed.lines[1]).toMatchObject({ rpc: 'DomainDefineXMLFlags', xml: '<domain><name>proxy-a</name></domain>' });
  });

  it('never carries a transfer body, even at trace: uploads and downloads report offset and length', async () => {
    const { lines, logger } = capture('trace');
    const api = observe(fakeApi, { host: 'beelink', logger });
    const body = Buffer.from(cloudInitSecret);
    await api.storageVolUpload({
      vol,
      source: (async function* () {
        yield body;
      })(),
      offset: 0,
      length: body.length,
    });
    const received: Buffer[] = [];
    for await (const chunk of api.storageVolDownload({ vol, offset: 0, length: 0 })) received.push(chunk);

    expect(Buffer.concat(received).toString()).toBe(cloudInitSecret);
    const upload = lines.find((line) => line.rpc === 'StorageVolUpload');
    const download = lines.find((line) => line.rpc === 'StorageVolDownload');
    expect(upload).toMatchObject({ offset: 0, length: body.length, pool: 'default', volume: vol.name });
    expect(download).toMatchObject({ offset: 0, length: 0 });
    expect(download?.spanID).toBe(spanNamed('kvm2.StorageVolDownload').spanContext().spanId);
    const everything = JSON.stringify([lines, exporter.getFinishedSpans().map((span) => [span.attributes, span.events, span.status])]);
    expect(everything).not.toContain('SECRET-MARKER');
    expect(everything).not.toContain(body.toString('base64'));
  });
});

describe('the kvm2.dial span', () => {
  const settingsFor = (socket: string) => kvm2Settings({ hosts: [{ name: 'beelink', address: 'beelink.lan:2222', user: 'novakj', bridge: 'br0', socket }] });

  it('wraps the handshake with host, address and user; the first RPC after it is a span of its own', async () => {
    const daemon = await startFakeLibvirtd(resources, await resources.tempDir());
    const backend = createHostBackend({
      providerName: 'kvm2-home',
      settings: settingsFor(daemon.path),
      logger: capture('debug').logger,
      dialTransport: (host) =>
        new Promise((resolve, reject) => {
          const socket = connect(host.socket, () => resolve(socket));
          socket.once('error', reject);
        }),
    });
    resources.add(() => backend.closeAll());
    await (await backend.pooled('beelink')).connectGetHostname();

    const dial = spanNamed('kvm2.dial');
    expect(dial.kind).toBe(SpanKind.CLIENT);
    expect(dial.attributes).toEqual({ 'kvm2.host': 'beelink', 'kvm2.address': 'beelink.lan:2222', 'kvm2.user': 'novakj' });
    expect(dial.status.code).toBe(SpanStatusCode.UNSET);
    expect(spanNamed('kvm2.ConnectGetHostname').attributes['kvm2.host']).toBe('beelink');
  });

  it('has status Error when the dial fails, and the failure line names the stage', async () => {
    const { lines, logger } = capture('debug');
    const backend = createHostBackend({
      providerName: 'kvm2-home',
      settings: settingsFor('/nowhere'),
      logger,
      dialTransport: async () => {
        throw new SshDialError({ code: 'SSH_AUTH_FAILED', stage: 'ssh', message: 'ssh dial novakj@beelink.lan:2222: authentication refused' });
      },
    });
    await expect(backend.fresh('beelink')).rejects.toMatchObject({ errorClass: 'permanent' });
    expect(spanNamed('kvm2.dial').status.code).toBe(SpanStatusCode.ERROR);
    expect(lines.find((line) => line.msg === 'libvirt host connect failed')).toMatchObject({
      stage: 'ssh',
      address: 'beelink.lan:2222',
      user: 'novakj',
      connection: 'fresh',
      spanID: spanNamed('kvm2.dial').spanContext().spanId,
    });
  });
});
