// An image URL's credentials and query string never leave the server: not in error messages (and
// so not in the Proxy's events), not in log lines, not in span status. One function does it.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { redactUrl } from '@/server/telemetry/redact-url';
import { controlPlane, type Harness, managedProxy } from '@/test/fakes/control-plane';
import { failureOf, makeHarness, testImage, TestMirror } from './kvm2-fixture';
import { captureSpans } from './span-capture';

const mirror = new TestMirror();
const exporter = captureSpans();
beforeAll(() => mirror.start());
afterAll(() => mirror.stop());
let control: Harness | undefined;
afterEach(async () => {
  await control?.close();
  control = undefined;
});

const secrets = ['alice', 'pa55word', 'sig=', 'S3CRET', 'frag'];
const withSecrets = (path: string) => mirror.url.replace('http://', 'http://alice:pa55word@') + `${path}?sig=S3CRET#frag`;
const leaks = (text: string) => secrets.filter((secret) => text.includes(secret));

describe('redactUrl', () => {
  it.each([
    ['https://user:token@mirror.example/images/d.qcow2?X-Amz-Signature=abc#x', 'https://mirror.example/images/d.qcow2'],
    ['http://mirror.example:8080/d.qcow2', 'http://mirror.example:8080/d.qcow2'],
    ['ftp://u:p@host/x', 'ftp://host/x'],
    ['not a url', '<unparseable URL>'],
  ])('%s -> %s', (input, output) => {
    expect(redactUrl(input)).toBe(output);
  });
});

describe('an image URL with credentials and a query', () => {
  it('is redacted in the error, the log lines and the span status when the mirror refuses it', async () => {
    mirror.routes.set('/404?sig=S3CRET', (_req, res) => res.writeHead(404).end());
    const harness = makeHarness({ mirror });
    const error = await failureOf(harness.provider.create(harness.request('proxy-r', { placement: { machineType: 'small', image: withSecrets('/404') } })));
    expect(error?.message).toContain(`${mirror.url}/404`);
    expect(leaks(error?.message ?? '')).toEqual([]);
    expect(leaks(harness.rawLogs.join(''))).toEqual([]);
    const statuses = exporter.getFinishedSpans().map((span) => span.status.message ?? '');
    expect(statuses.some((message) => message.includes(`${mirror.url}/404`))).toBe(true);
    expect(leaks(statuses.join(''))).toEqual([]);
  });

  it('is redacted in the download lines of a fetch that works', async () => {
    mirror.routes.set('/image.qcow2?sig=S3CRET', (req, res) =>
      res.writeHead(200, { 'content-length': testImage.length }).end(req.method === 'HEAD' ? undefined : testImage),
    );
    const harness = makeHarness({ mirror });
    await harness.provider.create(harness.request('proxy-s', { placement: { machineType: 'small', image: withSecrets('/image.qcow2') } }));
    expect(harness.logs.find((line) => line.msg === 'fetching base image into host pool')).toMatchObject({ url: `${mirror.url}/image.qcow2` });
    expect(leaks(harness.rawLogs.join(''))).toEqual([]);
    expect(leaks(JSON.stringify(exporter.getFinishedSpans().map((span) => [span.attributes, span.status])))).toEqual([]);
  });

  it("is redacted in the Proxy's status and events", async () => {
    mirror.routes.set('/404?sig=S3CRET', (_req, res) => res.writeHead(404).end());
    const harness = makeHarness({ mirror });
    control = await controlPlane({ providers: [harness.provider] });
    await control.proxies.create(
      managedProxy('leaky', { provider: harness.provider.name, placement: { zone: 'h1', machineType: 'small', image: withSecrets('/404') } }),
    );
    await control.settle();
    const view = await control.proxies.get('leaky');
    expect(view.status.phase).toBe('Failed');
    expect(view.status.lastError?.message).toContain(`${mirror.url}/404`);
    expect(leaks(JSON.stringify(view.status))).toEqual([]);
    expect(leaks(JSON.stringify(await control.proxies.events('leaky')))).toEqual([]);
  });
});
