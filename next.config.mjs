/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native and Node-only packages stay out of the server bundle and load from node_modules.
  serverExternalPackages: ['ssh2', 'better-sqlite3', 'pino', 'cpu-features'],
};

export default nextConfig;
