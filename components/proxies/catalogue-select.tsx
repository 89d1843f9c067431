'use client';
// A select over the provider catalogue's options (hosts, machine types, images); a text box when
// the server sent no catalogue for them. Shared by the Proxy and set forms.
import type { Catalogue } from '@/components/config/queries';
import { Field, controlClass } from '@/components/ui/field';
import { TextField } from '@/components/ui/text-field';

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
      <TextField
        id={id}
        label={label}
        error={error}
        hint={hint ?? 'The server sent no list of choices for this provider; type the value from its config.'}
        value={value}
        onChange={onChange}
        autoComplete="off"
      />
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

/** The machine type of a new Proxy or set's template, each offered with its size when the catalogue gives it. */
export function MachineTypeSelect({
  id,
  value,
  onChange,
  catalogue,
  error,
  hint,
}: {
  id: string;
  value: string;
  onChange: (value: string) => void;
  catalogue: Catalogue | undefined;
  error?: string;
  hint?: string;
}) {
  return (
    <CatalogueSelect
      id={id}
      label="Machine type"
      value={value}
      error={error}
      placeholder="Choose a machine type"
      hint={hint}
      options={(catalogue?.machineTypes ?? []).map((type) => ({
        value: type.name,
        label: type.vcpus ? `${type.name} (${type.vcpus} vCPU, ${type.memoryMiB} MiB)` : type.name,
      }))}
      onChange={onChange}
    />
  );
}
