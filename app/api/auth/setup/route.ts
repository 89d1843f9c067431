// First start: sets the admin password once, while none is configured (409 afterwards), given the
// one-time setup code the server printed in its log at start.
import { setupSchema } from '@/lib/api/auth';
import { setupPassword } from '@/server/http/auth-api';
import { authBodyLimitBytes } from '@/server/http/limits';
import { route } from '@/server/http/route';

export const dynamic = 'force-dynamic';

export const POST = route({ access: 'public', body: setupSchema, bodyLimitBytes: authBodyLimitBytes, status: 201 }, ({ auth, request, body }) =>
  setupPassword({ auth, request, password: body.password, setupCode: body.setupCode }),
);
