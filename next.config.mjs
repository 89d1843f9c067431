// Headers every response carries (pages get their Content-Security-Policy, with a nonce, from
// proxy.ts): no framing, no MIME sniffing, no Referer to other sites; the API's JSON may load
// nothing at all. And no X-Powered-By.
const everywhere = [
  { key: 'X-Frame-Options', value: 'DENY' },
  { key: 'X-Content-Type-Options', value: 'nosniff' },
  { key: 'Referrer-Policy', value: 'same-origin' },
];

/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native and Node-only packages stay out of the server bundle and load from node_modules.
  serverExternalPackages: ['ssh2', 'better-sqlite3', 'pino', 'cpu-features'],
  poweredByHeader: false,
  async headers() {
    return [
      { source: '/:path*', headers: everywhere },
      { source: '/api/:path*', headers: [{ key: 'Content-Security-Policy', value: "default-src 'none'; frame-ancestors 'none'" }] },
    ];
  },
};

export default nextConfig;
