// For crawler clients (API token, or the admin's session): Ready proxies as {name, url, labels, egressIP}.
import { route } from '@/server/http/route';
import { discoveryQuery } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'reader', query: discoveryQuery }, ({ runtime, query }) => runtime.proxies.discover(query));
