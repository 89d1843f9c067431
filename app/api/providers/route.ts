import { providerListSchema } from '@/lib/api/providers';
import { listProviders } from '@/server/http/providers-api';
import { route } from '@/server/http/route';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'admin', response: providerListSchema }, ({ services }) => listProviders(services));
