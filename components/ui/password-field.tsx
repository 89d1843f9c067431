'use client';
// A labelled password input (login, first setup, password change): the browser's password manager
// tells a current password from a new one by `autoComplete`.
import { TextField } from './text-field';

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

export function PasswordField(props: PasswordFieldProps) {
  return <TextField {...props} type="password" />;
}
