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

/** A choice among one kind of the catalogue's entries (machine types, images). */
interface CatalogueChoiceProps {
  id: string;
  value: string;
  onChange: (value: string) => void;
  catalogue: Catalogue | undefined;
  error?: string;
  hint?: string;
}

/** The machine type of a new Proxy or set's template, each offered with its size when the catalogue gives it. */
export function MachineTypeSelect({ catalogue, ...field }: CatalogueChoiceProps) {
  return (
    <CatalogueSelect
      {...field}
      label="Machine type"
      placeholder="Choose a machine type"
      options={(catalogue?.machineTypes ?? []).map((type) => ({
        value: type.name,
        label: type.vcpus ? `${type.name} (${type.vcpus} vCPU, ${type.memoryMiB} MiB)` : type.name,
      }))}
    />
  );
}

/** The image of a new Proxy or set's template, by its catalogue key; `urlOption` is the value of a last choice, an image by URL. */
export function ImageSelect({ catalogue, urlOption, ...field }: CatalogueChoiceProps & { urlOption?: string }) {
  const images = (catalogue?.images ?? []).map((image) => ({ value: image.key, label: image.key }));
  // Without catalogue images the select is a text box, which takes a URL as it is.
  const options = images.length > 0 && urlOption !== undefined ? [...images, { value: urlOption, label: 'Another image by URL…' }] : images;
  return <CatalogueSelect {...field} label="Image" placeholder="Choose an image" options={options} />;
}
