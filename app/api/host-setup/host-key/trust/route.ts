import { trustHostKeySchema } from '@/lib/api/host-setup';
import { route } from '@/server/http/route';

export const dynamic = 'force-dynamic';

export const POST = route({ access: 'admin', body: trustHostKeySchema }, ({ services, body }) => services.hostSetup.trustHostKey(body));
