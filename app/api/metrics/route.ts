// Prometheus text exposition, for a scraper with an API token (or the admin's session).
import { metricsText } from '@/server/http/metrics';
import { route } from '@/server/http/route';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'reader' }, ({ services }) => metricsText(services));
