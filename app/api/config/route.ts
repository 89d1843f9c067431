import { configSummary } from '@/server/http/config-summary';
import { route } from '@/server/http/route';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'admin' }, ({ services }) => configSummary(services));
