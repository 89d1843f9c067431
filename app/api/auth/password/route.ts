import { changePasswordSchema } from '@/lib/api/auth';
import { changePassword } from '@/server/http/auth-api';
import { authBodyLimitBytes } from '@/server/http/limits';
import { route } from '@/server/http/route';

export const dynamic = 'force-dynamic';

export const POST = route({ access: 'admin', body: changePasswordSchema, bodyLimitBytes: authBodyLimitBytes }, ({ auth, request, body }) =>
  changePassword({ auth, request, ...body }),
);
