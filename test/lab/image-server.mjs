// The lab's image server: serves the lab image and the awkward variants the kvm2 image fetch must
// handle, on loopback (and, with --also-listen, on the root end of the VM link, where the lab's VMs
// reach it; see scripts/guest-network.sh). Plain Node (no build step):
// `node image-server.mjs --port P --image F [--also-listen ADDRESS]... [--second-port Q]`; the second
// port (P+1 unless given) serves the same routes, as the far end of a cross-port redirect.
//
//   GET|HEAD /images/<file>               a file of the image directory (symlinks followed, streamed:
//                                         guest.qcow2 is hundreds of MiB), with Content-Length
//   GET /probe                            200 "probe target"; the proxy probes' target (counted)
//   GET /ip                               200 the caller's address as plain text: an IP-echo service
//                                         (IP_ECHO_URL) for the egress IP the proxies report
//   /variants/chunked.qcow2               the image without Content-Length (chunked encoding)
//   /variants/empty.qcow2                 Content-Length: 0
//   /variants/404 | /variants/429 | /variants/503   that status (429/503 with Retry-After: 1)
//   /variants/head-405.qcow2              HEAD answers 405, GET serves the image
//   /variants/truncated.qcow2             announces the full length, closes the connection half way
//   /variants/slow.qcow2[?chunk=N&intervalMs=M]  full length, N bytes (4096) every M ms (500)
//   /variants/redirect-once.qcow2         302 to /images/<image>
//   /variants/redirect-twice.qcow2        301 to redirect-once.qcow2 (two hops)
//   /variants/redirect-cross-port.qcow2   307 to /images/<image> on the second port
//   /variants/redirect-loop.qcow2         302 to redirect-loop-b.qcow2, which 302s back
//   GET /stats                            {"<path>": hits}; `?by=method` keys "<METHOD> <path>"
//   POST /stats/reset                     zeroes the counts (204)
//   GET /healthz                          200, not counted
import { createServer } from 'node:http';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    port: { type: 'string', default: '18080' },
    host: { type: 'string', default: '127.0.0.1' },
    'also-listen': { type: 'string', multiple: true, default: [] },
    image: { type: 'string' },
    'second-port': { type: 'string' },
  },
});
if (!args.image) throw new Error('--image <qcow2 file> is required');
const imageDir = dirname(args.image);
const imagePath = `/images/${basename(args.image)}`;
const secondPort = Number(args['second-port'] ?? Number(args.port) + 1);
const image = await readFile(args.image);

/** @type {Map<string, number>} "<METHOD> <path>" -> hits */
const hits = new Map();

function count(method, path) {
  const key = `${method} ${path}`;
  hits.set(key, (hits.get(key) ?? 0) + 1);
}

function statsBody(byMethod) {
  const out = {};
  for (const [key, n] of hits) {
    const name = byMethod ? key : key.slice(key.indexOf(' ') + 1);
    out[name] = (out[name] ?? 0) + n;
  }
  return JSON.stringify(out);
}

function sendStatus(res, status, headers = {}) {
  const body = `${status}\n`;
  res.writeHead(status, { 'Content-Type': 'text/plain', 'Content-Length': body.length, ...headers });
  res.end(body);
}

function sendBytes(req, res, bytes) {
  res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': bytes.length });
  res.end(req.method === 'HEAD' ? undefined : bytes);
}

function sendChunked(req, res) {
  res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
  if (req.method === 'HEAD') return res.end();
  const piece = 64 * 1024;
  for (let at = 0; at < image.length; at += piece) res.write(image.subarray(at, at + piece));
  res.end();
}

function sendTruncated(req, res) {
  res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': image.length });
  if (req.method === 'HEAD') return res.end();
  // Flush half the body, then drop the connection: the client sees a premature close.
  res.write(image.subarray(0, Math.floor(image.length / 2)), () => setTimeout(() => res.destroy(), 50));
}

function sendSlow(req, res, query) {
  const chunk = Math.max(1, Number(query.get('chunk') ?? 4096));
  const intervalMs = Math.max(1, Number(query.get('intervalMs') ?? 500));
  res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': image.length });
  if (req.method === 'HEAD') return res.end();
  let at = 0;
  const drip = () => {
    res.write(image.subarray(at, at + chunk));
    at += chunk;
    if (at >= image.length) {
      clearInterval(timer);
      res.end();
    }
  };
  const timer = setInterval(drip, intervalMs);
  res.on('close', () => clearInterval(timer));
  drip();
}

function sendRedirect(res, status, location) {
  res.writeHead(status, { Location: location, 'Content-Length': 0 });
  res.end();
}

/** The image on the second port of the host the client asked for (so it works on every address). */
function crossPortLocation(req) {
  const { hostname } = new URL(`http://${req.headers.host ?? args.host}`);
  return `http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${secondPort}${imagePath}`;
}

async function sendImageFile(req, res, name) {
  // Only plain names inside the image directory: no path can climb out of it.
  if (name !== basename(name) || !/^[\w.-]+$/.test(name)) return sendStatus(res, 404);
  const path = join(imageDir, name);
  let size;
  try {
    const info = await stat(path);
    if (!info.isFile()) return sendStatus(res, 404);
    size = info.size;
  } catch {
    return sendStatus(res, 404);
  }
  res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': size });
  if (req.method === 'HEAD') return res.end();
  const body = createReadStream(path);
  body.on('error', () => res.destroy());
  body.pipe(res);
}

const variants = {
  '/variants/chunked.qcow2': (req, res) => sendChunked(req, res),
  '/variants/empty.qcow2': (req, res) => sendBytes(req, res, Buffer.alloc(0)),
  '/variants/404': (req, res) => sendStatus(res, 404),
  '/variants/429': (req, res) => sendStatus(res, 429, { 'Retry-After': '1' }),
  '/variants/503': (req, res) => sendStatus(res, 503, { 'Retry-After': '1' }),
  '/variants/head-405.qcow2': (req, res) => (req.method === 'HEAD' ? sendStatus(res, 405, { Allow: 'GET' }) : sendBytes(req, res, image)),
  '/variants/truncated.qcow2': (req, res) => sendTruncated(req, res),
  '/variants/slow.qcow2': (req, res, query) => sendSlow(req, res, query),
  '/variants/redirect-once.qcow2': (req, res) => sendRedirect(res, 302, imagePath),
  '/variants/redirect-twice.qcow2': (req, res) => sendRedirect(res, 301, '/variants/redirect-once.qcow2'),
  '/variants/redirect-cross-port.qcow2': (req, res) => sendRedirect(res, 307, crossPortLocation(req)),
  '/variants/redirect-loop.qcow2': (req, res) => sendRedirect(res, 302, '/variants/redirect-loop-b.qcow2'),
  '/variants/redirect-loop-b.qcow2': (req, res) => sendRedirect(res, 302, '/variants/redirect-loop.qcow2'),
};

async function handle(req, res) {
  const url = new URL(req.url ?? '/', 'http://lab');
  const path = url.pathname;
  if (path === '/healthz') return sendStatus(res, 200);
  if (path === '/stats' && req.method === 'GET') {
    const body = statsBody(url.searchParams.get('by') === 'method');
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    return res.end(body);
  }
  if (path === '/stats/reset' && req.method === 'POST') {
    hits.clear();
    res.writeHead(204);
    return res.end();
  }
  count(req.method ?? 'GET', path);
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendStatus(res, 405, { Allow: 'GET, HEAD' });
  if (path === '/probe') return sendBytes(req, res, Buffer.from('probe target\n'));
  if (path === '/ip') return sendBytes(req, res, Buffer.from(`${(req.socket.remoteAddress ?? '').replace(/^::ffff:/, '')}\n`));
  const variant = variants[path];
  if (variant) return variant(req, res, url.searchParams);
  if (path.startsWith('/images/')) return sendImageFile(req, res, path.slice('/images/'.length));
  return sendStatus(res, 404);
}

function onRequest(req, res) {
  res.on('finish', () => console.log(`${new Date().toISOString()} ${req.method} ${req.url} ${res.statusCode}`));
  handle(req, res).catch((err) => {
    console.error(err);
    if (!res.headersSent) sendStatus(res, 500);
    else res.destroy();
  });
}

const servers = [args.host, ...args['also-listen']].flatMap((host) =>
  [Number(args.port), secondPort].map((port) => {
    const listener = createServer(onRequest);
    listener.listen(port, host, () => console.log(`image server on http://${host}:${port}`));
    return listener;
  }),
);
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    let open = servers.length;
    for (const listener of servers) {
      listener.close(() => (open -= 1) === 0 && process.exit(0));
      listener.closeAllConnections();
    }
  });
}
