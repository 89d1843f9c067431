import { loginSchema } from '@/lib/api/auth';
import { login } from '@/server/http/auth-api';
import { authBodyLimitBytes } from '@/server/http/limits';
import { route } from '@/server/http/route';

export const dynamic = 'force-dynamic';

export const POST = route({ access: 'public', body: loginSchema, bodyLimitBytes: authBodyLimitBytes }, ({ auth, request, body }) =>
  login({ auth, request, password: body.password }),
);
