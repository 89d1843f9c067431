import { generateIdentitySchema } from '@/lib/api/host-setup';
import { route } from '@/server/http/route';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'admin' }, async ({ runtime }) => ({ identities: await runtime.hostSetup.identities() }));

export const POST = route({ access: 'admin', body: generateIdentitySchema, status: 201 }, ({ runtime, body }) =>
  runtime.hostSetup.generateIdentity(body.provider),
);
