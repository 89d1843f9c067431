// The password length is stated once, in the API contract (lib/api/auth.ts): the server's body
// schemas refuse a shorter password with it, and the browser's forms (first-start setup, password
// change) check and hint with the same number instead of a copy of their own.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { changePasswordSchema, loginSchema, minPasswordLength, setupSchema } from '@/lib/api/auth';

const root = join(import.meta.dirname, '../..');
const forms = ['components/auth/login-form.tsx', 'components/settings/password-form.tsx'];

describe('the password length', () => {
  it('is what the setup and change bodies refuse below, naming the field and the length', () => {
    const short = 'x'.repeat(minPasswordLength - 1);
    const enough = 'x'.repeat(minPasswordLength);
    const setup = setupSchema.safeParse({ password: short, setupCode: 'abc' });
    expect(setup.error?.issues).toEqual([expect.objectContaining({ path: ['password'], message: `must be at least ${minPasswordLength} characters` })]);
    expect(setupSchema.safeParse({ password: enough, setupCode: 'abc' }).success).toBe(true);
    const change = changePasswordSchema.safeParse({ currentPassword: 'old', newPassword: short });
    expect(change.error?.issues).toEqual([expect.objectContaining({ path: ['newPassword'] })]);
    // Logging in checks no length: a password set before a rule changed still logs in.
    expect(loginSchema.safeParse({ password: 'x' }).success).toBe(true);
  });

  it.each(forms)('is what %s checks and hints with, taken from lib/api/auth.ts', (form) => {
    const source = readFileSync(join(root, form), 'utf8');
    expect(source).toMatch(/import \{[^}]*\bminPasswordLength\b[^}]*\} from '@\/lib\/api\/auth'/);
    expect(source).not.toMatch(/PasswordLength\s*=\s*\d/);
  });
});
