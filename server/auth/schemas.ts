// Request bodies of the auth routes, shared by the route handlers and the login form.
import { z } from 'zod';
import { maxPasswordLength, minPasswordLength } from './password';
import { tokenIdSchema, tokenNameSchema } from './tokens';

const newPassword = z
  .string({ error: 'must be a string' })
  .min(minPasswordLength, { error: `must be at least ${minPasswordLength} characters` })
  .max(maxPasswordLength, { error: `must be at most ${maxPasswordLength} characters` });

const givenPassword = z
  .string({ error: 'must be a string' })
  .min(1, { error: 'is required' })
  .max(maxPasswordLength, { error: `must be at most ${maxPasswordLength} characters` });

export const loginSchema = z.strictObject({ password: givenPassword });
const setupCode = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required: the server prints it in its log at start' : 'must be a string') })
  .trim()
  .min(1, { error: 'is required: the server prints it in its log at start' })
  .max(64, { error: 'is too long' });

export const setupSchema = z.strictObject({ password: newPassword, setupCode });
export const changePasswordSchema = z.strictObject({
  currentPassword: givenPassword,
  newPassword,
  revokeTokens: z.boolean({ error: 'must be true or false' }).optional(),
});
export const createTokenSchema = z.strictObject({ name: tokenNameSchema });
export const tokenParamsSchema = z.strictObject({ id: tokenIdSchema });
