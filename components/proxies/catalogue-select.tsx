'use client';
// A select over the provider catalogue's options (hosts, machine types, images); a text box when
// the server sent no catalogue for them. Shared by the Proxy and set forms.
import { Field, controlClass } from '@/components/ui/field';

/** A select over the catalogue's options; a text box when the server sent no catalogue for them. */
export function CatalogueSelect({
  id,
  label,
  value,
  onChange,
  options,
  placeholder,
  error,
  hint,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  options: Array<{ value: string; label: string }>;
  placeholder: string;
  error?: string;
  hint?: string;
}) {
  if (options.length === 0) {
    return (
      <Field id={id} label={label} error={error} hint={hint ?? 'The server sent no list of choices for this provider; type the value from its config.'}>
        {(aria) => <input {...aria} className={controlClass} value={value} onChange={(event) => onChange(event.target.value)} autoComplete="off" />}
      </Field>
    );
  }
  return (
    <Field id={id} label={label} error={error} hint={hint}>
      {(aria) => (
        <select {...aria} className={controlClass} value={value} onChange={(event) => onChange(event.target.value)}>
          <option value="">{placeholder}</option>
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
