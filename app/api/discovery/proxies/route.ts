// For crawler clients (API token, or the admin's session): Ready proxies as {proxies: [{name, url, labels, egressIP}]}.
import { discoveryListSchema } from '@/lib/api/proxies';
import { route } from '@/server/http/route';
import { discoveryQuery } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'reader', query: discoveryQuery, response: discoveryListSchema }, async ({ services, query }) => ({
  proxies: await services.proxies.discover(query),
}));
