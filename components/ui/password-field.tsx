'use client';
// A labelled password input (login, first setup, password change): the browser's password manager
// tells a current password from a new one by `autoComplete`.
import { Field, controlClass } from './field';

interface PasswordFieldProps {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  autoComplete: 'current-password' | 'new-password';
  error?: string;
  hint?: string;
  autoFocus?: boolean;
}

export function PasswordField({ id, label, value, onChange, autoComplete, error, hint, autoFocus }: PasswordFieldProps) {
  return (
    <Field id={id} label={label} error={error} hint={hint}>
      {(aria) => (
        <input
          {...aria}
          type="password"
          autoComplete={autoComplete}
          autoFocus={autoFocus}
          className={controlClass}
          value={value}
          onChange={(event) => onChange(event.target.value)}
        />
      )}
    </Field>
  );
}
