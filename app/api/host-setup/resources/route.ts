import { candidateSchema } from '@/lib/api/host-setup';
import { route } from '@/server/http/route';

export const dynamic = 'force-dynamic';

export const POST = route({ access: 'admin', body: candidateSchema }, ({ services, body }) => services.hostSetup.resources(body));
