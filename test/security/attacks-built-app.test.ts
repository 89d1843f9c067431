// Every attack of the security review, against the built app (`next build` + `next start`) over
// real connections: requests come from different loopback addresses (127.0.0.x), so the server
// tells clients apart the way it would on a LAN. No lab: the one kvm2 host is an SSH server in this
// process whose host key differs from the known_hosts entry. One server starts fresh (first start,
// a loosely-permissioned data directory, TRUST_PROXY=127.0.0.3), one with ADMIN_PASSWORD.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppServer, startApp } from '@/test/e2e/harness/app-server';
import { freePort } from '@/test/support/free-port';
import { type Browser, launchBrowser } from '@/test/e2e/harness/browser';
import { type DialScenario, generateKey, Resources, startDialScenario } from '@/test/unit/ssh-harness';
import { errorMessage, LoopbackClients, sessionFrom } from './http-client';

const resources = new Resources();
const clients = new LoopbackClients();
let work: string;
let ssh: DialScenario;
let fresh: AppServer;
let managed: AppServer;
let browser: Browser;
const chosenPassword = 'the chosen admin password';

function providersConfig(): string {
  const knownHosts = join(ssh.dir, 'known_hosts_other_key');
  writeFileSync(knownHosts, `[127.0.0.1]:${ssh.server.port} ${generateKey().publicFields}\n`);
  const path = join(work, 'providers.yaml');
  writeFileSync(
    path,
    [
      '- name: lan',
      '  type: kvm2',
      '  kvm2:',
      `    sshKeyFile: ${ssh.keyFile}`,
      `    knownHostsFile: ${knownHosts}`,
      '    images:',
      `      debian: {url: "http://127.0.0.1:9/debian.qcow2", sha256: "${'a'.repeat(64)}"}`,
      '    machineTypes:',
      '      small: {vcpus: 1, memoryMiB: 256}',
      '    hosts:',
      `      - {name: hv-1, address: "${ssh.server.address}", user: tester, bridge: br0, virtType: qemu}`,
      '',
    ].join('\n'),
  );
  return path;
}

/** A data directory left behind world-readable, as versions before the fix created it. */
function looseDataDir(): string {
  const dataDir = join(work, 'data');
  mkdirSync(dataDir);
  chmodSync(dataDir, 0o755);
  writeFileSync(join(dataDir, 'kvm2-proxies.db'), '');
  chmodSync(join(dataDir, 'kvm2-proxies.db'), 0o644);
  return dataDir;
}

const logLines = (app: AppServer): Array<Record<string, unknown>> =>
  app
    .logs()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const call = (app: AppServer, method: string, path: string, options: Parameters<LoopbackClients['call']>[3] = {}) =>
  clients.call(app.url, method, path, { ...options, headers: { origin: app.url, ...options.headers } });

async function logIn(app: AppServer, password: string, from: string): Promise<string> {
  return sessionFrom(await call(app, 'POST', '/api/auth/login', { from, body: { password } }));
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'kvm2-security-'));
  ssh = await startDialScenario(resources);
  chmodSync(ssh.keyFile, 0o644);
  fresh = await startApp({
    password: null,
    providersConfig: providersConfig(),
    dataDir: looseDataDir(),
    env: { TRUST_PROXY: '127.0.0.3', PROVIDER_CHECK_INTERVAL: '2s', LOG_LEVEL: 'debug' },
  });
  managed = await startApp({ password: 'from the environment 1' });
  browser = await launchBrowser();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await fresh?.stop();
  await managed?.stop();
  await clients.close();
  await resources.cleanup();
  rmSync(work, { recursive: true, force: true });
});

describe('first start (finding 3)', () => {
  it('tells a stranger only whether setup is pending, and sets the password only with the setup code from the log', async () => {
    const status = await call(fresh, 'GET', '/api/auth/status', { from: '127.0.0.9' });
    expect(status.json).toEqual({ passwordConfigured: false, authenticated: false });
    const announced = logLines(fresh).find((line) => typeof line.setupCode === 'string');
    expect(announced?.msg).toContain('one-time setup code');
    const setupCode = announced!.setupCode as string;

    const withoutCode = await call(fresh, 'POST', '/api/auth/setup', { from: '127.0.0.9', body: { password: 'stranger password' } });
    expect(withoutCode.status).toBe(400);
    const wrongCode = await call(fresh, 'POST', '/api/auth/setup', {
      from: '127.0.0.9',
      body: { password: 'stranger password', setupCode: 'AAAAA-BBBBB-CCCCC' },
    });
    expect(wrongCode.status).toBe(403);
    expect(errorMessage(wrongCode)).toContain('log');
    expect((await call(fresh, 'POST', '/api/auth/login', { from: '127.0.0.9', body: { password: 'stranger password' } })).status).toBe(409);

    expect((await call(fresh, 'POST', '/api/auth/setup', { from: '127.0.0.4', body: { password: chosenPassword, setupCode } })).status).toBe(201);
    expect((await call(fresh, 'POST', '/api/auth/setup', { from: '127.0.0.4', body: { password: 'a second password', setupCode } })).status).toBe(409);
    await logIn(fresh, chosenPassword, '127.0.0.4');
  });

  it('applies ADMIN_PASSWORD at start, before any request reaches the auth routes', () => {
    // Only /api/healthz has been asked so far: the hash must be in the store already.
    const db = new BetterSqlite3(join(managed.dataDir, 'kvm2-proxies.db'), { readonly: true });
    try {
      expect(db.prepare(`SELECT source FROM admin_password`).pluck().all()).toEqual(['environment']);
    } finally {
      db.close();
    }
    expect(logLines(managed).some((line) => line.msg === 'admin password set from ADMIN_PASSWORD')).toBe(true);
    expect(managed.logs()).not.toContain('setup code');
  });
});

describe('login rate limit (finding 2)', () => {
  it('lets at most 5 of 50 parallel wrong passwords reach the hash, however X-Forwarded-For varies; the right password from another client gets in', async () => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call(fresh, 'POST', '/api/auth/login', { from: '127.0.0.1', headers: { 'x-forwarded-for': `198.51.100.${i}` }, body: { password: `guess ${i}` } }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(45);
    expect(statuses.filter((status) => status !== 401 && status !== 429)).toEqual([]);
    expect(Number(answers.find((answer) => answer.status === 429)?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // The guesser itself is held off, even with the right password; another client is not.
    expect((await call(fresh, 'POST', '/api/auth/login', { from: '127.0.0.1', body: { password: chosenPassword } })).status).toBe(429);
    expect((await call(fresh, 'POST', '/api/auth/login', { from: '127.0.0.2', body: { password: chosenPassword } })).status).toBe(200);
  });

  it('believes X-Forwarded-For and X-Forwarded-Proto only from a TRUST_PROXY address', async () => {
    const viaProxy = (client: string, password: string) =>
      call(fresh, 'POST', '/api/auth/login', { from: '127.0.0.3', headers: { 'x-forwarded-for': client, 'x-forwarded-proto': 'https' }, body: { password } });
    for (let i = 0; i < 5; i++) expect((await viaProxy('203.0.113.7', `guess ${i}`)).status).toBe(401);
    expect((await viaProxy('203.0.113.7', chosenPassword)).status).toBe(429);
    const other = await viaProxy('203.0.113.8', chosenPassword);
    expect(other.status).toBe(200);
    expect(String(other.headers['set-cookie'])).toContain('; Secure');
    const direct = await call(fresh, 'POST', '/api/auth/login', {
      from: '127.0.0.5',
      headers: { 'x-forwarded-proto': 'https' },
      body: { password: chosenPassword },
    });
    expect(direct.status).toBe(200);
    expect(String(direct.headers['set-cookie'])).not.toContain('Secure');
  });
});

describe('Origin check (finding 5)', () => {
  it('refuses a DNS-rebinding page whose Host and Origin agree, and accepts the addresses the server listens on', async () => {
    const session = await logIn(fresh, chosenPassword, '127.0.0.6');
    const port = new URL(fresh.url).port;
    const createToken = (origin: string, host?: string) =>
      call(fresh, 'POST', '/api/tokens', {
        from: '127.0.0.6',
        headers: { origin, cookie: `kvm2_session=${session}`, ...(host ? { host } : {}) },
        body: { name: 'x' },
      });
    const rebound = await createToken(`http://evil.example:${port}`, `evil.example:${port}`);
    expect(rebound.status).toBe(403);
    expect(errorMessage(rebound)).toContain('APP_ORIGIN');
    expect((await createToken(`http://127.0.0.1:${Number(port) + 1}`)).status).toBe(403);
    expect((await createToken(`http://127.0.0.1:${port}`)).status).toBe(201);
    expect((await createToken(`http://localhost:${port}`)).status).toBe(201);
  });
});

describe('security headers (finding 4)', () => {
  it('sends a nonce CSP without eval on pages, framing and sniffing protection everywhere, and no X-Powered-By', async () => {
    const nonces = new Set<string>();
    for (const path of ['/login', '/login']) {
      const page = await call(fresh, 'GET', path);
      const policy = String(page.headers['content-security-policy']);
      nonces.add(/'nonce-([^']+)'/.exec(policy)?.[1] ?? '');
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).not.toContain('unsafe-eval');
      expect(page.text).toContain(`nonce="${/'nonce-([^']+)'/.exec(policy)?.[1]}"`);
    }
    expect(nonces.size).toBe(2);
    for (const path of ['/login', '/api/healthz', '/api/auth/status']) {
      const reply = await call(fresh, 'GET', path);
      expect(reply.headers['x-frame-options'], path).toBe('DENY');
      expect(reply.headers['x-content-type-options'], path).toBe('nosniff');
      expect(reply.headers['referrer-policy'], path).toBe('same-origin');
      expect(reply.headers['x-powered-by'], path).toBeUndefined();
    }
  });
});

describe('files (finding 6)', () => {
  it('tightened the data directory and the store at start, saying so, and warns about a key file others can read', () => {
    expect((statSync(fresh.dataDir).mode & 0o777).toString(8)).toBe('700');
    for (const file of ['kvm2-proxies.db', 'kvm2-proxies.db-wal']) expect((statSync(join(fresh.dataDir, file)).mode & 0o777).toString(8), file).toBe('600');
    const tightened = logLines(fresh).filter((line) => String(line.msg).startsWith('tightened the permissions'));
    expect(tightened.map((line) => line.path)).toEqual(expect.arrayContaining([fresh.dataDir, join(fresh.dataDir, 'kvm2-proxies.db')]));
    expect(logLines(fresh).find((line) => String(line.msg).includes('sshKeyFile is readable by group or others'))).toMatchObject({
      path: ssh.keyFile,
      mode: '0644',
    });
  });
});

describe('smaller findings (7)', () => {
  it('refuses a __proto__ label selector with 400 instead of matching everything', async () => {
    const session = await logIn(fresh, chosenPassword, '127.0.0.7');
    const reply = await call(fresh, 'GET', '/api/proxies?labels=__proto__%3Dx', { from: '127.0.0.7', headers: { cookie: `kvm2_session=${session}` } });
    expect(reply.status).toBe(400);
  });

  it('answers /hosts/a/%25 without a URIError (its host is not found), and a malformed path with 404', async () => {
    const session = await logIn(fresh, chosenPassword, '127.0.0.7');
    const cookie = { cookie: `kvm2_session=${session}` };
    const percent = await call(fresh, 'GET', '/hosts/a/%25', { headers: cookie });
    expect(percent.status).not.toBe(500);
    expect(percent.text).not.toContain('URIError');
    expect(percent.text).toContain('Host %');
    // Decoded once, `%25` names a host `%`, which the page's API call answers with 404.
    expect((await call(fresh, 'GET', '/api/providers/a/hosts/%25', { headers: cookie })).status).toBe(404);
    for (const path of ['/hosts/a/%', '/hosts/a/%zz', '/proxies/%E2%82']) expect((await call(fresh, 'GET', path, { headers: cookie })).status, path).toBe(404);
  });

  it('ends every session on a password change, and every API token when asked', async () => {
    const other = await logIn(fresh, chosenPassword, '127.0.0.8');
    const mine = await logIn(fresh, chosenPassword, '127.0.0.8');
    const token = (await call(fresh, 'POST', '/api/tokens', { from: '127.0.0.8', headers: { cookie: `kvm2_session=${mine}` }, body: { name: 'crawler' } })).json
      .token as string;
    const changed = await call(fresh, 'POST', '/api/auth/password', {
      from: '127.0.0.8',
      headers: { cookie: `kvm2_session=${mine}` },
      body: { currentPassword: chosenPassword, newPassword: `${chosenPassword} 2`, revokeTokens: true },
    });
    expect(changed.status).toBe(200);
    expect(changed.json.revokedTokens).toBeGreaterThanOrEqual(1);
    expect((await call(fresh, 'GET', '/api/providers', { headers: { cookie: `kvm2_session=${other}` } })).status).toBe(401);
    expect((await call(fresh, 'GET', '/api/discovery/proxies', { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    expect((await call(fresh, 'GET', '/api/providers', { headers: { cookie: `kvm2_session=${sessionFrom(changed)}` } })).status).toBe(200);
  });

  it('keeps the known_hosts path out of API answers; the log has it', async () => {
    const session = await logIn(fresh, `${chosenPassword} 2`, '127.0.0.10');
    let text = '';
    for (let i = 0; i < 60 && !text.includes('known_hosts'); i++) {
      text = (await call(fresh, 'GET', '/api/providers', { headers: { cookie: `kvm2_session=${session}` } })).text;
      if (!text.includes('known_hosts')) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(text).toContain('does not match line 1 of the known_hosts file');
    expect(text).not.toContain(ssh.dir);
    expect(logLines(fresh).some((line) => line.file === join(ssh.dir, 'known_hosts_other_key'))).toBe(true);
  });
});

describe('in the browser (findings 1 and 4)', () => {
  it.each(['/%09/evil.example/x', '/%0a/evil.example/x', '/%09%5Cevil.example/x'])('stays on the dashboard after logging in with next=%s', async (next) => {
    const page = await browser.newPage();
    // Nothing may leave the machine, whatever the page tries.
    await page.route(
      (url) => url.origin !== managed.url,
      (route) => route.abort(),
    );
    await page.goto(`${managed.url}/login?next=${next}`);
    await page.getByLabel('Admin password').fill(managed.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL((url) => url.pathname !== '/login', { timeout: 30_000 });
    expect(new URL(page.url()).origin).toBe(managed.url);
    expect(new URL(page.url()).pathname).toBe('/');
    await page.close();
  });

  it('shows nothing of /settings inside another site’s frame', async () => {
    const framer: Server = createServer((_request, response) => {
      response.setHeader('content-type', 'text/html');
      response.end(`<!doctype html><title>framer</title><iframe id="target" src="${managed.url}/settings" width="800" height="600"></iframe>`);
    });
    const port = await freePort();
    await new Promise<void>((resolve) => framer.listen(port, '127.0.0.1', resolve));
    try {
      const page = await browser.newPage();
      const refusals: string[] = [];
      page.on('console', (message) => refusals.push(message.text()));
      await page.goto(`http://127.0.0.1:${port}/`);
      // The refusal is logged once the frame's answer arrived: only then is its content final.
      await expect.poll(() => refusals.join('\n'), { timeout: 15_000 }).toMatch(/frame-ancestors|X-Frame-Options/);
      const frame = page.frames().find((candidate) => candidate !== page.mainFrame());
      const shown = frame ? await frame.evaluate(() => document.body?.innerText ?? '').catch(() => '') : '';
      expect(shown).not.toMatch(/kvm2|Settings|password|Log in/i);
      await page.close();
    } finally {
      framer.close();
    }
  });

  it('renders the login page and settings under the CSP without a single violation', async () => {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) =>
        console.error(`Refused to load: CSP violation of ${event.violatedDirective} by ${event.blockedURI}`),
      );
    });
    await page.goto(`${managed.url}/login`);
    await page.getByLabel('Admin password').fill(managed.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL((url) => url.pathname === '/', { timeout: 30_000 });
    await page.goto(`${managed.url}/settings`);
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    expect(violations).toEqual([]);
    await page.close();
  });
});
