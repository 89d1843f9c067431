// POST /api/auth/logout's answer on its own: every page's shell has the Log out button, and it
// needs this schema alone, not auth.ts's password and token schemas in every page's first load.
import { z } from 'zod';

export const loggedOutSchema = z.strictObject({ authenticated: z.literal(false) });
export type LoggedOutBody = z.infer<typeof loggedOutSchema>;
