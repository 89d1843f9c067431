import { LibvirtClient, unixSocketDialer } from '@/server/libvirt';
const c = await LibvirtClient.open({ dialer: unixSocketDialer() });
for (let i = 0; i < 500; i++) await c.connectGetLibVersion();
for (let r = 0; r < 3; r++) {
const t = performance.now();
for (let i = 0; i < 5000; i++) await c.connectGetLibVersion();
console.log('ours unix rtt ms', ((performance.now() - t) / 5000).toFixed(4));
}
await c.close();
