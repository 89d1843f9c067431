'use client';
// A labelled one-line input whose value is a string: the Field wiring (ids, hint, error) around a
// plain <input>, for the forms' many text, number and password fields.
import type { InputHTMLAttributes } from 'react';
import { Field, type FieldProps, controlClass } from './field';

type InputAttributes = Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'value' | 'onChange' | 'className'>;

export interface TextFieldProps extends InputAttributes {
  id: string;
  label: FieldProps['label'];
  value: string;
  onChange: (value: string) => void;
  error?: string;
  hint?: FieldProps['hint'];
  /** classes added to the input's own (a width) */
  className?: string;
}

export function TextField({ id, label, value, onChange, error, hint, className, ...input }: TextFieldProps) {
  return (
    <Field id={id} label={label} error={error} hint={hint}>
      {(aria) => (
        <input
          {...aria}
          {...input}
          className={className ? `${controlClass} ${className}` : controlClass}
          value={value}
          onChange={(event) => onChange(event.target.value)}
        />
      )}
    </Field>
  );
}
