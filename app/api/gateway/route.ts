// The Gateway page's data: where crawlers connect and this replica's live gateway traffic.
import { gatewayViewSchema } from '@/lib/api/gateway';
import { route } from '@/server/http/route';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'admin', response: gatewayViewSchema }, async ({ services }) => await services.gateway.view());
