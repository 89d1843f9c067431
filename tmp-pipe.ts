import { LibvirtClient, unixSocketDialer } from '@/server/libvirt';
import { openOverSsh } from '@/test/lab/rpc-lab-support';
import { loadLab } from '@/test/lab/harness/lab';
const lab = loadLab();
for (const via of ['unix', 'ssh']) {
  const c = via === 'unix' ? await LibvirtClient.open({ dialer: unixSocketDialer() }) : await openOverSsh(lab);
  for (let i = 0; i < 200; i++) await c.connectGetLibVersion();
  for (const n of [5, 10, 100]) {
    let t = performance.now();
    for (let r = 0; r < 20; r++) for (let i = 0; i < n; i++) await c.connectGetLibVersion();
    const seq = (performance.now() - t) / 20;
    t = performance.now();
    for (let r = 0; r < 20; r++) await Promise.all(Array.from({ length: n }, () => c.connectGetLibVersion()));
    const par = (performance.now() - t) / 20;
    console.log(via, n, 'seq', seq.toFixed(2), 'par', par.toFixed(2));
  }
  await c.close();
}
