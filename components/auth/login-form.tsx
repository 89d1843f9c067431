'use client';
// The login page body: the password form, or on first start (no admin password yet) the form that
// sets one with the setup code from the server's log. Afterwards the browser goes back where it
// came from, never to another site.
import { useSearchParams } from 'next/navigation';
import { useState } from 'react';
import { hasCode } from '@/components/api/client';
import { Button } from '@/components/ui/button';
import { ErrorPanel } from '@/components/ui/error-panel';
import { Field, controlClass } from '@/components/ui/field';
import { PasswordField } from '@/components/ui/password-field';
import { SkeletonRows } from '@/components/ui/skeleton';
import { useAuthStatus, useLogin, useSetupPassword } from './queries';
import { errorMessage } from '@/lib/error-message';
import { minPasswordLength } from '@/lib/api/auth';

/**
 * Where to go after logging in: `next` resolved the way the browser will resolve it (which drops
 * tabs and newlines and reads a backslash as `/`), kept only when it stays on this origin; anything else
 * (`//evil.example`, `/%09/evil.example`, absolute URLs) goes to the overview.
 */
export function safeNext(next: string | null, origin: string): string {
  if (!next) return '/';
  let target: URL;
  try {
    target = new URL(next, origin);
  } catch {
    return '/';
  }
  return target.origin === origin ? target.pathname + target.search + target.hash : '/';
}

function messageOf(err: unknown): string {
  if (hasCode(err, 'ERR_INVALID_CREDENTIALS')) return 'That password is not right.';
  if (hasCode(err, 'ERR_TOO_MANY_ATTEMPTS')) return 'Too many attempts. Wait a little and try again.';
  return errorMessage(err);
}

function LoginFields({ onDone }: { onDone: () => void }) {
  const login = useLogin();
  const [password, setPassword] = useState('');
  return (
    <form
      noValidate
      className="space-y-4"
      onSubmit={(event) => {
        event.preventDefault();
        login.mutate(password, { onSuccess: onDone });
      }}
    >
      <PasswordField
        id="password"
        label="Admin password"
        error={login.error ? messageOf(login.error) : undefined}
        autoComplete="current-password"
        autoFocus
        value={password}
        onChange={setPassword}
      />
      <Button type="submit" tone="primary" className="w-full" disabled={login.isPending || password === ''}>
        {login.isPending ? 'Logging in…' : 'Log in'}
      </Button>
    </form>
  );
}

function SetupFields({ onDone }: { onDone: () => void }) {
  const setup = useSetupPassword();
  const login = useLogin();
  const [setupCode, setSetupCode] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [error, setError] = useState<{ field: 'setupCode' | 'password' | 'repeat'; message: string }>();
  return (
    <form
      noValidate
      className="space-y-4"
      onSubmit={async (event) => {
        event.preventDefault();
        if (setupCode.trim() === '') return setError({ field: 'setupCode', message: "Enter the setup code from the server's log." });
        if (password.length < minPasswordLength) return setError({ field: 'password', message: `Use at least ${minPasswordLength} characters.` });
        if (password !== repeat) return setError({ field: 'repeat', message: 'The two passwords differ.' });
        setError(undefined);
        try {
          await setup.mutateAsync({ password, setupCode });
          await login.mutateAsync(password);
          onDone();
        } catch (err) {
          if (hasCode(err, 'ERR_INVALID_SETUP_CODE'))
            return setError({ field: 'setupCode', message: "That setup code is not right. Copy it from the server's latest start." });
          setError({ field: 'password', message: hasCode(err, 'ERR_INVALID_INPUT') ? (err.fields.password ?? err.message) : messageOf(err) });
        }
      }}
    >
      <p className="text-sm text-slate-700">
        This is the first start: choose the admin password. To prove you run this server, enter the one-time setup code it printed in its log at start:{' '}
        <code className="text-xs">journalctl -u kvm2-proxies</code> under systemd, or the terminal running <code className="text-xs">npm start</code>.
      </p>
      <Field
        id="setup-code"
        label="Setup code"
        error={error?.field === 'setupCode' ? error.message : undefined}
        hint="Three groups of five letters and digits, e.g. ABCDE-FGH23-JKL45."
      >
        {(aria) => (
          <input
            {...aria}
            type="text"
            autoComplete="off"
            spellCheck={false}
            autoFocus
            className={controlClass}
            value={setupCode}
            onChange={(event) => setSetupCode(event.target.value)}
          />
        )}
      </Field>
      <PasswordField
        id="new-password"
        label="Admin password"
        error={error?.field === 'password' ? error.message : undefined}
        hint={`At least ${minPasswordLength} characters.`}
        autoComplete="new-password"
        value={password}
        onChange={setPassword}
      />
      <PasswordField
        id="repeat-password"
        label="The same password again"
        error={error?.field === 'repeat' ? error.message : undefined}
        autoComplete="new-password"
        value={repeat}
        onChange={setRepeat}
      />
      <Button type="submit" tone="primary" className="w-full" disabled={setup.isPending || login.isPending}>
        {setup.isPending || login.isPending ? 'Saving…' : 'Set password and log in'}
      </Button>
    </form>
  );
}

export function LoginForm() {
  const status = useAuthStatus();
  const params = useSearchParams();
  // A full navigation, so the server renders the page with the new session cookie.
  const done = () => {
    window.location.href = safeNext(params.get('next'), window.location.origin);
  };
  if (status.isPending) return <SkeletonRows rows={2} label="the login form" />;
  if (status.isError) return <ErrorPanel title="The server did not answer" error={status.error} onRetry={() => void status.refetch()} />;
  return status.data.passwordConfigured ? <LoginFields onDone={done} /> : <SetupFields onDone={done} />;
}
