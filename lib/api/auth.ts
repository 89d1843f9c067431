// Bodies of the auth routes (/api/auth/*), the API tokens (/api/tokens) and the gateway tokens
// (/api/gateway/tokens: the same shapes, with the prefix `kvm2g_<id>`): what the routes parse and
// what they answer (the logout answer is in logout.ts, for the shell). The browser's forms check
// with the same limits.
import { z } from 'zod';
import { collection } from './collection';

export const minPasswordLength = 8;
/** Longer inputs only cost CPU; nobody types more. */
export const maxPasswordLength = 1024;

const newPassword = z
  .string({ error: 'must be a string' })
  .min(minPasswordLength, { error: `must be at least ${minPasswordLength} characters` })
  .max(maxPasswordLength, { error: `must be at most ${maxPasswordLength} characters` });

const givenPassword = z
  .string({ error: 'must be a string' })
  .min(1, { error: 'is required' })
  .max(maxPasswordLength, { error: `must be at most ${maxPasswordLength} characters` });

const setupCode = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required: the server prints it in its log at start' : 'must be a string') })
  .trim()
  .min(1, { error: 'is required: the server prints it in its log at start' })
  .max(64, { error: 'is too long' });

export const tokenNameSchema = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, { error: 'is required' })
  .max(64, { error: 'must be at most 64 characters' })
  .regex(/^[\p{L}\p{N} ._:@/-]+$/u, { error: 'may contain letters, digits, spaces and . _ : @ / -' });

export const tokenIdSchema = z.string({ error: 'must be a string' }).regex(/^[0-9a-f]{16}$/, { error: 'must be a token id (16 hex characters)' });

/** POST /api/auth/login */
export const loginSchema = z.strictObject({ password: givenPassword });
/** POST /api/auth/setup: the first password, with the setup code from the server's log */
export const setupSchema = z.strictObject({ password: newPassword, setupCode });
/** POST /api/auth/password */
export const changePasswordSchema = z.strictObject({
  currentPassword: givenPassword,
  newPassword,
  revokeTokens: z.boolean({ error: 'must be true or false' }).optional(),
});
/** POST /api/tokens and /api/gateway/tokens */
export const createTokenSchema = z.strictObject({ name: tokenNameSchema });
/** /api/tokens/{id} and /api/gateway/tokens/{id} */
export const tokenParamsSchema = z.strictObject({ id: tokenIdSchema });

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
