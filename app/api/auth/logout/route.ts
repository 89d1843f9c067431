import { logout } from '@/server/http/auth-api';
import { route } from '@/server/http/route';

export const dynamic = 'force-dynamic';

export const POST = route({ access: 'admin' }, ({ auth, request, sessionCookie }) => logout({ auth, request, sessionCookie }));
