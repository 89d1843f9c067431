// The Gateway page's snippets work in their tools: each is run by the tool's own parser (curl for
// real against a listening socket; Python and Node.js with the library replaced by a stub that
// records what it was given) and must hand the gateway exactly the chosen username and token, even
// when they hold characters a URL must encode.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayCredentials } from '@/components/gateway/gateway-url';
import { exampleTarget, gatewaySnippets, type Snippet, type SnippetTool } from '@/components/gateway/snippets';
import { requireTool } from '../support/system-tool';

const run = promisify(execFile);

// Real tokens are base64url; these prove the quoting and the percent-encoding hold for anything.
const awkward: GatewayCredentials = {
  host: '127.0.0.1',
  port: 8888,
  username: `crawler's "eu"-label-example.com/team=a.b-session-42`,
  password: `kvm2g_0123456789abcdef_a:b@c/d?e#f%g'h"i j!(*)\\$x`,
};
const plain: GatewayCredentials = { host: 'gw.lan', port: 8888, username: 'crawler-session-1', password: 'kvm2g_0123456789abcdef_Zm9v-YmFy_' };

const snippet = (credentials: GatewayCredentials, tool: SnippetTool): string => {
  const found = gatewaySnippets(credentials).find((entry: Snippet) => entry.tool === tool);
  if (!found) throw new Error(`no ${tool} snippet`);
  return found.code;
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gateway-snippets-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('offers curl, Python requests, Scrapy and Playwright', () => {
  expect(gatewaySnippets(plain).map((entry) => entry.title)).toEqual(['curl', 'Python requests', 'Scrapy', 'Playwright (Node.js)']);
  expect(snippet(plain, 'curl')).toBe(`curl --proxy 'http://crawler-session-1:kvm2g_0123456789abcdef_Zm9v-YmFy_@gw.lan:8888' '${exampleTarget}'`);
});

describe('curl', () => {
  // A socket in the gateway's place: it keeps the first request's head and answers 407.
  let server: Server;
  let port: number;
  const heads: string[] = [];
  beforeAll(async () => {
    server = createServer((socket) => {
      let head = '';
      socket.on('data', (chunk) => {
        head += chunk.toString('latin1');
        if (!head.includes('\r\n\r\n')) return;
        heads.push(head);
        socket.end('HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends the username and token as Proxy-Authorization through the proxy', async () => {
    requireTool('curl', 'curl');
    const code = snippet({ ...awkward, port }, 'curl');
    // curl fails on the 407; what matters is what it sent.
    await run(requireTool('sh', 'dash'), ['-c', `${code} --silent --max-time 10`]).catch(() => undefined);
    expect(heads).toHaveLength(1);
    const head = heads[0] ?? '';
    expect(head.startsWith('CONNECT example.com:443 ')).toBe(true);
    const basic = /^Proxy-Authorization: Basic (\S+)\r$/im.exec(head)?.[1];
    expect(Buffer.from(basic ?? '', 'base64').toString('utf8')).toBe(`${awkward.username}:${awkward.password}`);
  });
});

/** Runs Python `script` with `stubs` (module name -> source) importable; its stdout as JSON. */
async function python(script: string, stubs: Record<string, string>): Promise<unknown> {
  const stubDir = await mkdtemp(join(dir, 'py-'));
  for (const [name, source] of Object.entries(stubs)) await writeFile(join(stubDir, `${name}.py`), source);
  const { stdout } = await run(requireTool('python3', 'python3-minimal'), ['-c', script], { env: { ...process.env, PYTHONPATH: stubDir } });
  return JSON.parse(stdout) as unknown;
}

describe('Python requests', () => {
  it('passes proxies whose URL requests decodes to the username and token', async () => {
    const stub = ['calls = []', 'def get(url, **kwargs):', '    calls.append({"url": url, **kwargs})', '    class R: status_code = 407', '    return R()'].join(
      '\n',
    );
    // requests.utils.get_auth_from_url: urlparse, then unquote the user and the password.
    const script = [
      'import contextlib, io, json, requests',
      'from urllib.parse import unquote, urlparse',
      `with contextlib.redirect_stdout(io.StringIO()): exec(${JSON.stringify(snippet(awkward, 'requests'))})`,
      'call = requests.calls[0]',
      'proxies = call["proxies"]',
      'parsed = urlparse(proxies["https"])',
      'print(json.dumps({"url": call["url"], "schemes": sorted(proxies), "same": proxies["http"] == proxies["https"],',
      '  "user": unquote(parsed.username), "password": unquote(parsed.password), "host": parsed.hostname, "port": parsed.port}))',
    ].join('\n');
    expect(await python(script, { requests: stub })).toEqual({
      url: exampleTarget,
      schemes: ['http', 'https'],
      same: true,
      user: awkward.username,
      password: awkward.password,
      host: '127.0.0.1',
      port: 8888,
    });
  });
});

describe('Scrapy', () => {
  it('yields a request whose meta proxy HttpProxyMiddleware decodes to the username and token', async () => {
    const stub = [
      'class Spider:',
      '    pass',
      'class Request:',
      '    def __init__(self, url, callback=None, meta=None, **kwargs):',
      '        self.url = url',
      '        self.meta = meta or {}',
    ].join('\n');
    // HttpProxyMiddleware._get_proxy: urllib's _parse_proxy, then unquote the user and the password.
    const script = [
      'import json, scrapy',
      'from urllib.parse import unquote',
      'from urllib.request import _parse_proxy',
      'namespace = {}',
      `exec(${JSON.stringify(snippet(awkward, 'scrapy'))}, namespace)`,
      'spider_class = next(v for v in namespace.values() if isinstance(v, type) and issubclass(v, scrapy.Spider) and v is not scrapy.Spider)',
      'starts = spider_class().start()',
      // An async generator driven by hand: no event loop needed for a generator that never awaits.
      'try:',
      '    starts.__anext__().send(None)',
      'except StopIteration as done:',
      '    request = done.value',
      'kind, user, password, hostport = _parse_proxy(request.meta["proxy"])',
      'print(json.dumps({"name": spider_class.name, "url": request.url, "kind": kind, "user": unquote(user), "password": unquote(password), "hostport": hostport}))',
    ].join('\n');
    expect(await python(script, { scrapy: stub })).toEqual({
      name: 'gateway',
      url: exampleTarget,
      kind: 'http',
      user: awkward.username,
      password: awkward.password,
      hostport: '127.0.0.1:8888',
    });
  });
});

describe('Playwright', () => {
  it('launches Chromium with server, username and password apart, as they are', async () => {
    const project = await mkdtemp(join(dir, 'node-'));
    const stub = join(project, 'node_modules', 'playwright');
    await mkdir(stub, { recursive: true });
    await writeFile(join(stub, 'package.json'), JSON.stringify({ name: 'playwright', type: 'module', exports: './index.js' }));
    await writeFile(
      join(stub, 'index.js'),
      [
        'const seen = { gotos: [] };',
        'process.on("exit", () => process.stderr.write(JSON.stringify(seen)));',
        'export const chromium = {',
        '  async launch(options) {',
        '    seen.launch = options;',
        '    return { async newPage() { return { async goto(url) { seen.gotos.push(url); }, async title() { return "t"; } }; }, async close() {} };',
        '  },',
        '};',
      ].join('\n'),
    );
    await writeFile(join(project, 'snippet.mjs'), snippet(awkward, 'playwright'));
    const { stderr } = await run(process.execPath, [join(project, 'snippet.mjs')], { cwd: project });
    expect(JSON.parse(stderr)).toEqual({
      launch: { proxy: { server: 'http://127.0.0.1:8888', username: awkward.username, password: awkward.password } },
      gotos: [exampleTarget],
    });
  });
});
