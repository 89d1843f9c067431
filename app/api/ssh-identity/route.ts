import { generateIdentitySchema } from '@/lib/api/host-setup';
import { route } from '@/server/http/route';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'admin' }, async ({ services }) => ({ identities: await services.hostSetup.identities() }));

export const POST = route({ access: 'admin', body: generateIdentitySchema, status: 201 }, ({ services, body }) =>
  services.hostSetup.generateIdentity(body.provider),
);
