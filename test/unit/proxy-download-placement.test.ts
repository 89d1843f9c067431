// The download a Proxy waits on is looked up on the host it goes to: for an automatically placed
// Proxy, the host chosen for it (its spec names none).
import { describe, expect, it } from 'vitest';
import type { ProxyView } from '@/lib/proxy-spec';
import { proxyDownload } from '@/server/http/proxy-download';
import type { Placement } from '@/server/providers/contract';
import type { DownloadProgress } from '@/server/providers/host-inventory';
import type { RouteServices } from '@/server/runtime';

const progress: DownloadProgress = {
  host: 'h2',
  volume: 'base-t-img.qcow2',
  urlHost: 'mirror',
  totalBytes: 10,
  doneBytes: 5,
  startedAt: 0,
  bytesPerSecond: 1,
  etaSeconds: 5,
};

function servicesWith(view: Partial<ProxyView>, asked: Placement[]): RouteServices {
  const inventory = { placementDownload: (placement: Placement) => (asked.push(placement), placement.zone === 'h2' ? progress : undefined) };
  return { proxies: { get: () => view }, providers: { get: () => ({ inventory }) } } as unknown as RouteServices;
}

const base = { mode: 'Managed' as const, provider: 't', placement: { machineType: 'small', image: 'img' } };

describe('the download of an automatically placed Proxy', () => {
  it('is looked up on the chosen host', async () => {
    const asked: Placement[] = [];
    const view = { ...base, status: { chosenPlacement: { zone: 'h2', reason: 'h2: …', at: '' } } } as unknown as ProxyView;
    expect(await proxyDownload(servicesWith(view, asked), 'alpha')).toEqual({ download: progress });
    expect(asked).toEqual([{ machineType: 'small', image: 'img', zone: 'h2' }]);
  });

  it('is looked up with the placement as written when nothing was chosen', async () => {
    const asked: Placement[] = [];
    const view = { ...base, status: {} } as unknown as ProxyView;
    expect(await proxyDownload(servicesWith(view, asked), 'alpha')).toEqual({ download: null });
    expect(asked).toEqual([{ machineType: 'small', image: 'img' }]);
  });
});
