// Where an image URL's redirects may lead (issue 27 item 10): never from https to http; never to a
// link-local, unspecified or multicast address; to loopback only from a loopback image URL, to a
// private one only from a private or loopback URL; judged on the address actually connected to (the
// dispatcher's own lookup), so a name that answers differently the second time changes nothing.
// Refusals are permanent and name the chain, redacted. Real servers on 127.0.0.1 and 127.0.0.2,
// and a fake lookup for names that must resolve to addresses no test can listen on.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, LookupFunction } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorClassOf } from '@/server/providers/errors';
import { imageContentLength, openImageStream } from '@/server/providers/kvm2/image-fetch';
import { addressKind, redirectAllowed, redirectGuard, type AddressKind } from '@/server/providers/kvm2/redirect-guard';
import { drain } from './http-fixture';

describe('address kinds', () => {
  it.each<[string, AddressKind]>([
    ['93.184.215.14', 'public'],
    ['2a00:1450:4001:80b::200e', 'public'],
    ['172.32.0.1', 'public'],
    ['198.20.0.1', 'public'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.10', 'private'],
    ['100.64.0.1', 'private'],
    ['198.18.0.1', 'private'],
    ['198.19.255.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.0.0.2', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
  ])('%s is %s', (address, kind) => {
    expect(addressKind(address)).toBe(kind);
  });

  it.each<[AddressKind, AddressKind[]]>([
    ['public', ['public']],
    ['private', ['public', 'private']],
    ['loopback', ['public', 'private', 'loopback']],
    ['link-local', ['public']],
  ])('a redirect from a %s image URL may reach %j only', (first, reachable) => {
    const kinds: AddressKind[] = ['public', 'private', 'loopback', 'link-local', 'unspecified', 'multicast'];
    expect(kinds.filter((target) => redirectAllowed(first, target))).toEqual(reachable);
  });
});

/** A lookup answering from a table; each name's answers are used in turn (the last one repeats). */
function fakeLookup(table: Record<string, string[][]>): LookupFunction & { asked: string[] } {
  const asked: string[] = [];
  const lookup = ((hostname: string, options: { all?: boolean }, callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void) => {
    asked.push(hostname);
    const answers = table[hostname];
    const addresses = (answers?.[Math.min(asked.filter((name) => name === hostname).length, answers.length) - 1] ?? []).map((address) => ({
      address,
      family: address.includes(':') ? 6 : 4,
    }));
    if (addresses.length === 0) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  }) as LookupFunction & { asked: string[] };
  lookup.asked = asked;
  return lookup;
}

/** Resolves `host` through the guard's own lookup at `hop`, as the dispatcher would before connecting. */
function resolveAt(guard: ReturnType<typeof redirectGuard>, url: string, hop: number): Promise<string[]> {
  guard.before(new URL(url), hop);
  return new Promise((resolve, reject) =>
    guard.lookup(new URL(url).hostname, { all: true }, (err, addresses) =>
      err ? reject(err) : resolve((addresses as unknown as LookupAddress[]).map((entry) => entry.address)),
    ),
  );
}

describe('the guard’s lookup (names a test cannot listen on)', () => {
  const lookup = fakeLookup({
    'mirror.example': [['93.184.215.14']],
    'cdn.example': [['2a00:1450:4001:80b::200e']],
    'lan-mirror.internal': [['192.168.1.10']],
    'other-lan.internal': [['10.20.0.5']],
    'metadata.internal': [['169.254.169.254']],
    'mapped.internal': [['::ffff:127.0.0.1']],
    'localhost.internal': [['127.0.0.1']],
    'split.example': [['127.0.0.1', '93.184.215.14']],
    // Public when first asked, loopback afterwards: the answer used is the one judged.
    'rebind.example': [['93.184.215.14'], ['127.0.0.1']],
  });

  it('from a public image URL: a public redirect passes; private, loopback (mapped too) and link-local ones are refused', async () => {
    const guard = redirectGuard({ lookup });
    await expect(resolveAt(guard, 'https://mirror.example/debian.qcow2', 0)).resolves.toEqual(['93.184.215.14']);
    await expect(resolveAt(guard, 'https://cdn.example/debian.qcow2', 1)).resolves.toEqual(['2a00:1450:4001:80b::200e']);
    for (const [url, message] of [
      ['http://lan-mirror.internal/x', "lan-mirror.internal resolves to 192.168.1.10, a private address, and the image URL's own is public"],
      ['http://mapped.internal/x', "mapped.internal resolves to ::ffff:127.0.0.1, a loopback address, and the image URL's own is public"],
      ['http://metadata.internal/latest/meta-data/', "metadata.internal resolves to 169.254.169.254, a link-local address, and the image URL's own is public"],
    ]) {
      await expect(resolveAt(guard, url!, 2)).rejects.toMatchObject({ code: 'ERR_IMAGE_REDIRECT_REFUSED', message });
    }
    expect(() => guard.before(new URL('http://10.0.0.1/x'), 3)).toThrow("10.0.0.1, a private address, and the image URL's own is public");
    guard.close();
  });

  it('from a private image URL: another private address passes, loopback does not', async () => {
    const guard = redirectGuard({ lookup });
    await resolveAt(guard, 'http://lan-mirror.internal/debian.qcow2', 0);
    await expect(resolveAt(guard, 'http://other-lan.internal/debian.qcow2', 1)).resolves.toEqual(['10.20.0.5']);
    await expect(resolveAt(guard, 'http://localhost.internal/debian.qcow2', 2)).rejects.toMatchObject({ fields: { kind: 'loopback', first: 'private' } });
    guard.close();
  });

  it('from a loopback image URL: private and loopback pass, link-local never', async () => {
    const guard = redirectGuard({ lookup });
    await resolveAt(guard, 'http://localhost.internal:18080/debian.qcow2', 0);
    await expect(resolveAt(guard, 'http://lan-mirror.internal/x', 1)).resolves.toEqual(['192.168.1.10']);
    await expect(resolveAt(guard, 'http://mapped.internal/x', 2)).resolves.toEqual(['::ffff:127.0.0.1']);
    await expect(resolveAt(guard, 'http://metadata.internal/x', 3)).rejects.toMatchObject({ fields: { kind: 'link-local', first: 'loopback' } });
    guard.close();
  });

  it('keeps only the allowed addresses of a name that resolves to several, and judges each answer it uses', async () => {
    const guard = redirectGuard({ lookup });
    await resolveAt(guard, 'https://mirror.example/debian.qcow2', 0);
    await expect(resolveAt(guard, 'https://split.example/x', 1)).resolves.toEqual(['93.184.215.14']);
    await expect(resolveAt(guard, 'https://rebind.example/x', 2)).resolves.toEqual(['93.184.215.14']);
    await expect(resolveAt(guard, 'https://rebind.example/x', 3)).rejects.toMatchObject({ fields: { address: '127.0.0.1', kind: 'loopback' } });
    guard.close();
  });
});

// ---- through openImageStream and imageContentLength, over real servers ----------------------------

const image = randomBytes(32 * 1024);
const seen: string[] = [];
let first: { url: string; port: number; close(): Promise<void> };
let second: { url: string; port: number; close(): Promise<void> };
let tls: { url: string; port: number; close(): Promise<void> };
let ca: string;
let certDir: string;

const redirect = (res: ServerResponse, location: string): void => void res.writeHead(302, { location }).end();

async function listen(host: string, handler: RequestListener, options?: { key: Buffer; cert: Buffer }) {
  const server = options ? createTlsServer(options, handler) : createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${options ? 'https' : 'http'}://${host}:${port}`,
    port,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function route(req: IncomingMessage, res: ServerResponse): void {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  seen.push(`${req.headers.host} ${path}`);
  if (path === '/image') return void res.writeHead(200, { 'content-length': image.length }).end(req.method === 'HEAD' ? undefined : image);
  if (path === '/to-second') return redirect(res, `${second.url}/image`);
  if (path === '/to-unspecified') return redirect(res, `http://0.0.0.0:${first.port}/image`);
  if (path === '/to-metadata') return redirect(res, 'http://169.254.169.254/latest/meta-data/iam/security-credentials/');
  if (path === '/to-mapped-metadata') return redirect(res, 'http://[::ffff:a9fe:a9fe]/latest/meta-data/');
  if (path === '/to-metadata-name') return redirect(res, `http://metadata.internal:${first.port}/image?token=s3cr3t`);
  if (path === '/to-plain') return redirect(res, `http://127.0.0.1:${first.port}/image`);
  return void res.writeHead(404).end();
}

beforeAll(async () => {
  certDir = mkdtempSync(join(tmpdir(), 'redirect-tls-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      join(certDir, 'key.pem'),
      '-out',
      join(certDir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  ca = readFileSync(join(certDir, 'cert.pem'), 'utf8');
  first = await listen('127.0.0.1', route);
  second = await listen('127.0.0.2', route);
  tls = await listen('127.0.0.1', route, { key: readFileSync(join(certDir, 'key.pem')), cert: Buffer.from(ca) });
});
afterAll(async () => {
  await Promise.all([first.close(), second.close(), tls.close()]);
  rmSync(certDir, { recursive: true, force: true });
});

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (err: unknown) => err as Error,
  );

describe('image URL redirects, end to end', () => {
  it('a loopback image URL may redirect to another loopback address (the lab’s image server does), GET and HEAD', async () => {
    const stream = await openImageStream(`${first.url}/to-second`, { deadlineMs: 5000 });
    expect(await drain(stream.body)).toBe(image.length);
    expect(stream.sourceError()).toBeUndefined();
    await expect(imageContentLength(`${first.url}/to-second`, { timeoutMs: 5000 })).resolves.toBe(image.length);
  });

  it.each([
    ['/to-unspecified', (): string => `http://0.0.0.0:${first.port}/image`, '0.0.0.0, an unspecified address'],
    ['/to-metadata', (): string => 'http://169.254.169.254/latest/meta-data/iam/security-credentials/', '169.254.169.254, a link-local address'],
    ['/to-mapped-metadata', (): string => 'http://[::ffff:a9fe:a9fe]/latest/meta-data/', '::ffff:a9fe:a9fe, a link-local address'],
  ])('refuses %s permanently, naming the chain, without connecting', async (path, target, what) => {
    seen.length = 0;
    const errors = await Promise.all(
      [openImageStream(`${first.url}${path}`, { deadlineMs: 5000 }), imageContentLength(`${first.url}${path}`, { timeoutMs: 5000 })].map(failure),
    );
    for (const error of errors) {
      expect(errorClassOf(error)).toBe('permanent');
      expect(error?.message).toContain(`image URL ${first.url}${path} -> ${target()} was refused: ${what}`);
    }
    expect(seen.every((line) => line.endsWith(path))).toBe(true);
  });

  it('resolves a redirect’s name with its own lookup and refuses a link-local answer, redacting the chain', async () => {
    const lookup = fakeLookup({ 'metadata.internal': [['169.254.169.254']] });
    const error = await failure(openImageStream(`${first.url}/to-metadata-name`, { deadlineMs: 5000, network: { lookup } }));
    expect(errorClassOf(error)).toBe('permanent');
    expect(error?.message).toContain(
      `image URL ${first.url}/to-metadata-name -> http://metadata.internal:${first.port}/image was refused: metadata.internal resolves to 169.254.169.254, a link-local address`,
    );
    expect(error?.message).not.toContain('s3cr3t');
    expect(lookup.asked).toEqual(['metadata.internal']);
  });

  it('refuses a redirect from https to http permanently, naming the chain', async () => {
    seen.length = 0;
    const errors = await Promise.all(
      [
        openImageStream(`${tls.url}/to-plain`, { deadlineMs: 5000, network: { ca } }),
        imageContentLength(`${tls.url}/to-plain`, { timeoutMs: 5000, network: { ca } }),
      ].map(failure),
    );
    for (const error of errors) {
      expect(errorClassOf(error)).toBe('permanent');
      expect(error?.message).toBe(
        `image URL ${tls.url}/to-plain redirects from https to http (${first.url}/image): refused, a redirect may not drop TLS; point the catalogue at the image's final https URL`,
      );
    }
    expect(seen).toEqual([`127.0.0.1:${tls.port} /to-plain`, `127.0.0.1:${tls.port} /to-plain`]);
  });
});
