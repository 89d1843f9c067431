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
export const setupSchema = z.strictObject({ password: newPassword });
export const changePasswordSchema = z.strictObject({ currentPassword: givenPassword, newPassword });
export const createTokenSchema = z.strictObject({ name: tokenNameSchema });
export const tokenParamsSchema = z.strictObject({ id: tokenIdSchema });
