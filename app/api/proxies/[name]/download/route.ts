// Live progress (bytes, rate, ETA) of the base image this Proxy waits on; `{download: null}` when none runs.
import { proxyDownloadSchema } from '@/lib/api/proxies';
import { proxyDownload } from '@/server/http/proxy-download';
import { route } from '@/server/http/route';
import { proxyParams } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'admin', params: proxyParams, response: proxyDownloadSchema }, ({ services, params }) =>
  proxyDownload(services, params.name),
);
