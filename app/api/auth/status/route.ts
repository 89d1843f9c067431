// What the login page needs before anyone is logged in: is a password set, is this browser in.
import { authStatus } from '@/server/http/auth-api';
import { route } from '@/server/http/route';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'public' }, ({ auth, sessionCookie }) => authStatus({ auth, sessionCookie }));
