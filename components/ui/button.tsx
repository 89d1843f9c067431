// Buttons and button-styled links: one look per intent, a visible focus ring on every one.
import Link from 'next/link';
import type { ButtonHTMLAttributes, ComponentProps } from 'react';

export type ButtonTone = 'primary' | 'secondary' | 'danger' | 'ghost';

const base =
  'inline-flex items-center justify-center gap-2 rounded-md px-3 py-2 text-sm font-medium transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 disabled:cursor-not-allowed disabled:opacity-60';

const tones: Record<ButtonTone, string> = {
  primary: 'bg-blue-700 text-white hover:bg-blue-800',
  secondary: 'border border-slate-300 bg-white text-slate-800 hover:bg-slate-100',
  danger: 'bg-red-700 text-white hover:bg-red-800',
  ghost: 'text-slate-700 hover:bg-slate-200',
};

export const buttonClass = (tone: ButtonTone = 'secondary', extra = ''): string => `${base} ${tones[tone]} ${extra}`.trim();

export function Button({ tone = 'secondary', className = '', type = 'button', ...props }: ButtonHTMLAttributes<HTMLButtonElement> & { tone?: ButtonTone }) {
  return <button type={type} className={buttonClass(tone, className)} {...props} />;
}

export function LinkButton({ tone = 'secondary', className = '', ...props }: ComponentProps<typeof Link> & { tone?: ButtonTone }) {
  return <Link className={buttonClass(tone, className)} {...props} />;
}
