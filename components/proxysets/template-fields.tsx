'use client';
// The set's template: provider, machine type, image, port, labels and cloud-init (no host: the set
// spreads its members itself). The same fields as a Proxy's, with the same cloud-init editor.
import type { FieldMessages } from '@/components/api/client';
import type { ConfigProvider } from '@/components/config/queries';
import { Panel } from '@/components/ui/panel';
import { TextField } from '@/components/ui/text-field';
import { CatalogueSelect, ImageSelect, MachineTypeSelect } from '@/components/proxies/catalogue-select';
import { CloudInitFields } from '@/components/proxies/cloud-init-fields';
import { LabelsEditor } from '@/components/proxies/labels-editor';
import type { SetFormState } from './set-form-model';

export interface TemplateFieldsProps {
  state: SetFormState;
  onChange: (patch: Partial<SetFormState>) => void;
  errors: FieldMessages;
  providers: ConfigProvider[];
  /** editing: the provider cannot change, the stored cloud-init can be kept */
  editing?: { cloudInitBytes: number };
}

export function TemplateFields({ state, onChange, errors, providers, editing }: TemplateFieldsProps) {
  const catalogue = providers.find((entry) => entry.name === state.provider)?.catalogue;
  return (
    <>
      <Panel title="Template">
        <div className="grid gap-4 md:grid-cols-2">
          <CatalogueSelect
            id="set-provider"
            label="Provider"
            value={state.provider}
            error={errors['provider']}
            placeholder="Choose a provider"
            hint={editing ? 'A set stays on its provider.' : undefined}
            options={(editing ? providers.filter((entry) => entry.name === state.provider) : providers).map((entry) => ({
              value: entry.name,
              label: `${entry.name} (${entry.type})`,
            }))}
            onChange={(provider) => onChange({ provider, machineType: '', image: '' })}
          />
          <MachineTypeSelect
            id="set-machine-type"
            value={state.machineType}
            error={errors['placement.machineType']}
            catalogue={catalogue}
            onChange={(machineType) => onChange({ machineType })}
          />
          <ImageSelect id="set-image" value={state.image} error={errors['placement.image']} catalogue={catalogue} onChange={(image) => onChange({ image })} />
          <TextField
            id="set-port"
            label="Port"
            error={errors.port}
            hint="The port the proxy listens on inside each VM."
            inputMode="numeric"
            value={state.port}
            onChange={(port) => onChange({ port })}
          />
        </div>
      </Panel>
      <Panel title="Labels">
        <p className="mb-2 text-xs text-slate-600">Every member also carries proxyset={state.name || '<set>'}.</p>
        <LabelsEditor rows={state.labels} onChange={(labels) => onChange({ labels })} error={errors.labels} />
      </Panel>
      <Panel title="Cloud-init">
        <CloudInitFields
          state={state.cloudInit}
          onChange={(cloudInit) => onChange({ cloudInit })}
          port={Number(state.port)}
          errors={errors}
          {...(editing && editing.cloudInitBytes > 0 ? { stored: { bytes: editing.cloudInitBytes } } : {})}
        />
      </Panel>
    </>
  );
}
