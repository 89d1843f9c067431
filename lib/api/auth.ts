// Bodies of the auth routes (/api/auth/*), the API tokens (/api/tokens) and the gateway tokens
// (/api/gateway/tokens: the same shapes, with the prefix `kvm2g_<id>`).
import { z } from 'zod';
import { collection } from './collection';

export const authStatusSchema = z.strictObject({
  /** false on first start, before an admin password exists */
  passwordConfigured: z.boolean(),
  authenticated: z.boolean(),
  /** where the password came from (`environment`: ADMIN_PASSWORD); only for the logged-in admin */
  passwordSource: z.enum(['setup', 'environment', 'change']).optional(),
});
export type AuthStatus = z.infer<typeof authStatusSchema>;

/** Login and password change: the session is in Set-Cookie, never in the body. */
export const sessionSchema = z.strictObject({ authenticated: z.literal(true), expiresAt: z.string() });
export type SessionBody = z.infer<typeof sessionSchema>;

/** A password change: the new session, and how many API tokens went with the old password. */
export const passwordChangedSchema = sessionSchema.extend({ revokedTokens: z.number().int().nonnegative() });
export type PasswordChangedBody = z.infer<typeof passwordChangedSchema>;

export const loggedOutSchema = z.strictObject({ authenticated: z.literal(false) });
export type LoggedOutBody = z.infer<typeof loggedOutSchema>;

export const passwordSetSchema = z.strictObject({ passwordConfigured: z.literal(true) });
export type PasswordSetBody = z.infer<typeof passwordSetSchema>;

export const apiTokenSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  /** `kvm2p_<id>`, the part of the token that tells tokens apart */
  prefix: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().optional(),
});
export type ApiToken = z.infer<typeof apiTokenSchema>;

export const tokenListSchema = collection('tokens', apiTokenSchema);
export type TokenList = z.infer<typeof tokenListSchema>;

/** The POST answer: the only time the whole token is shown. */
export const createdTokenSchema = apiTokenSchema.extend({ token: z.string() });
export type CreatedToken = z.infer<typeof createdTokenSchema>;

export const revokedTokenSchema = z.strictObject({ revoked: z.string() });
export type RevokedToken = z.infer<typeof revokedTokenSchema>;
