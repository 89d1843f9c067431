'use client';
// Change the admin password: the current one, the new one twice. Every other session ends; the
// API tokens too when the admin ticks the box (a leaked password may have made tokens).
import { useState } from 'react';
import { hasCode } from '@/components/api/client';
import { minPasswordLength } from '@/lib/api/auth';
import { useAuthStatus } from '@/components/auth/queries';
import { Button } from '@/components/ui/button';
import { FormError } from '@/components/ui/form-error';
import { PasswordField } from '@/components/ui/password-field';
import { useChangePassword } from './queries';

export function PasswordForm() {
  const change = useChangePassword();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [revokeTokens, setRevokeTokens] = useState(false);
  const [done, setDone] = useState<string>();
  const [formError, setFormError] = useState<string>();
  const status = useAuthStatus();

  function submit(event: React.FormEvent) {
    event.preventDefault();
    setDone(undefined);
    setFormError(undefined);
    const found: Record<string, string> = {};
    if (current === '') found.currentPassword = 'Enter your current password.';
    if (next.length < minPasswordLength) found.newPassword = `Use at least ${minPasswordLength} characters.`;
    else if (next !== repeat) found.repeat = 'The two new passwords differ.';
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    change.mutate(
      { currentPassword: current, newPassword: next, revokeTokens },
      {
        onSuccess: (result) => {
          const revoked = (result as { revokedTokens?: unknown } | null)?.revokedTokens;
          setDone(
            typeof revoked === 'number' && revokeTokens ? `Password changed; ${revoked} API token${revoked === 1 ? '' : 's'} revoked.` : 'Password changed.',
          );
          setRevokeTokens(false);
          setCurrent('');
          setNext('');
          setRepeat('');
        },
        onError: (err) => {
          if (hasCode(err, 'ERR_INVALID_INPUT')) setErrors(err.fields);
          else if (hasCode(err, 'ERR_INVALID_CREDENTIALS')) setErrors({ currentPassword: 'That is not the current password.' });
          else setFormError(err.message);
        },
      },
    );
  }

  if (status.data?.passwordSource === 'environment') {
    return (
      <p className="text-sm text-slate-700">
        The admin password is set by ADMIN_PASSWORD in this server&apos;s environment. Change it there and restart the server.
      </p>
    );
  }
  return (
    <form noValidate onSubmit={submit} className="max-w-md space-y-4">
      <FormError message={formError} />
      <PasswordField
        id="current-password"
        label="Current password"
        error={errors.currentPassword ?? errors.password}
        autoComplete="current-password"
        value={current}
        onChange={setCurrent}
      />
      <PasswordField
        id="new-password"
        label="New password"
        error={errors.newPassword}
        hint={`At least ${minPasswordLength} characters.`}
        autoComplete="new-password"
        value={next}
        onChange={setNext}
      />
      <PasswordField id="repeat-password" label="New password again" error={errors.repeat} autoComplete="new-password" value={repeat} onChange={setRepeat} />
      <div className="flex items-start gap-2">
        <input id="revoke-tokens" type="checkbox" className="mt-1" checked={revokeTokens} onChange={(event) => setRevokeTokens(event.target.checked)} />
        <label htmlFor="revoke-tokens" className="text-sm text-slate-800">
          Also revoke every API token (crawler clients then need new ones). Other browser sessions end either way.
        </label>
      </div>
      <Button type="submit" tone="primary" disabled={change.isPending}>
        {change.isPending ? 'Saving…' : 'Change password'}
      </Button>
      {done ? (
        <p role="status" className="text-sm text-emerald-800">
          {done}
        </p>
      ) : null}
    </form>
  );
}
