'use client';
// Create a Proxy: provider, host, machine type and image from the config's catalogue (each choice
// with one option made already), port, labels and cloud-init. Checked in the browser with the
// server's own schema; the server's 400 lands next to the same fields.
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { type FieldMessages, formMessage, hasCode } from '@/components/api/client';
import type { ConfigProvider } from '@/components/config/queries';
import { WithProviders } from '@/components/config/with-providers';
import { useProviders } from '@/components/hosts/queries';
import { FormActions } from '@/components/ui/form-actions';
import { FormError } from '@/components/ui/form-error';
import { Panel } from '@/components/ui/panel';
import { TextField } from '@/components/ui/text-field';
import { CatalogueSelect as Select, ImageSelect, MachineTypeSelect } from './catalogue-select';
import { CloudInitFields } from './cloud-init-fields';
import { buildInput, choicesFor, type CreateFormState, customImage, fieldElementId, fieldOrder, fieldsFromServer, initialFormState } from './create-form-model';
import { LabelsEditor } from './labels-editor';
import { usePlacementPreview, useCreateProxy } from './queries';

/** The catalogue's hosts, or else the hosts the health check knows for the provider. */
function zoneOptions(provider: ConfigProvider | undefined, checkedHosts: string[]): Array<{ value: string; label: string }> {
  const hosts = provider?.catalogue?.hosts ?? [];
  if (hosts.length) return hosts.map((host) => ({ value: host.name, label: host.address ? `${host.name} — ${host.address}` : host.name }));
  return checkedHosts.map((name) => ({ value: name, label: name }));
}

/** What the automatic choice would be now, under the host select. */
function placementHint(preview: ReturnType<typeof usePlacementPreview>): string {
  if (preview.isPending) return 'The server picks a reachable host with room for the disk and memory.';
  if (preview.error || !preview.data) return 'The server picks the host when it creates the VM (it could not say which right now).';
  const { choice, refusals } = preview.data;
  if (choice) return `Right now that would be ${choice.reason}.`;
  return `No host fits right now; the Proxy would wait: ${refusals.map((refusal) => `${refusal.host}: ${refusal.reason}`).join('; ')}.`;
}

function suggestName(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(3));
  return `proxy-${[...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

function focusFirstError(errors: FieldMessages): void {
  const first = fieldOrder.find((key) => errors[key]);
  if (!first) return;
  const element = document.getElementById(fieldElementId[first]);
  if (element instanceof HTMLInputElement || element instanceof HTMLSelectElement || element instanceof HTMLTextAreaElement) element.focus();
  else element?.scrollIntoView({ block: 'center' });
}

function CreateProxyFields({ providers }: { providers: ConfigProvider[] }) {
  const router = useRouter();
  const create = useCreateProxy();
  const [state, setState] = useState<CreateFormState>(() => initialFormState(providers, suggestName()));
  const [errors, setErrors] = useState<FieldMessages>({});
  const [formError, setFormError] = useState<string>();
  const provider = providers.find((entry) => entry.name === state.provider);
  const health = useProviders();
  const checkedHosts = health.data?.find((entry) => entry.name === state.provider)?.targets.map((target) => target.name) ?? [];
  // Several hosts of a provider that places: an empty choice leaves the host to the server (automatic placement).
  const automatic = provider?.capabilities.placement === true && (provider.catalogue?.hosts.length ?? 0) > 1;
  const preview = usePlacementPreview({ provider: state.provider, machineType: state.machineType, enabled: automatic && state.zone === '' });
  const set =
    <K extends keyof CreateFormState>(key: K) =>
    (value: CreateFormState[K]) =>
      setState((previous) => ({ ...previous, [key]: value }));

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    setFormError(undefined);
    const { input, errors: found } = buildInput(state);
    setErrors(found);
    if (Object.keys(found).length > 0) return focusFirstError(found);
    try {
      await create.mutateAsync(input);
      router.push(`/proxies/${encodeURIComponent(input.name)}`);
    } catch (err) {
      const fields = hasCode(err, 'ERR_INVALID_INPUT', 'ERR_PROXY_INVALID') ? fieldsFromServer(err.fields) : {};
      setErrors(fields);
      setFormError(formMessage(err, fields));
      focusFirstError(fields);
    }
  }

  const machine = provider?.catalogue?.machineTypes.find((entry) => entry.name === state.machineType);
  return (
    <form noValidate onSubmit={submit} className="space-y-6" aria-describedby={formError ? 'form-error' : undefined}>
      <FormError id="form-error" message={formError} />
      <Panel title="Proxy">
        <div className="grid gap-4 md:grid-cols-2">
          <TextField
            id="proxy-name"
            label="Name"
            error={errors.name}
            hint="Lower-case letters, digits and dashes; also names its VM."
            value={state.name}
            onChange={set('name')}
            autoComplete="off"
          />
          <Select
            id="proxy-provider"
            label="Provider"
            value={state.provider}
            error={errors.provider}
            placeholder="Choose a provider"
            options={providers.map((entry) => ({ value: entry.name, label: `${entry.name} (${entry.type})${entry.available ? '' : ' — unavailable'}` }))}
            onChange={(value) => setState((previous) => ({ ...previous, provider: value, ...choicesFor(providers.find((entry) => entry.name === value)) }))}
          />
          <Select
            id="proxy-zone"
            label="Host (zone)"
            value={state.zone}
            error={errors['placement.zone']}
            placeholder={automatic ? 'Best host (automatic)' : 'Choose a host'}
            hint={automatic && state.zone === '' ? placementHint(preview) : undefined}
            options={zoneOptions(provider, checkedHosts)}
            onChange={set('zone')}
          />
          <MachineTypeSelect
            id="proxy-machine-type"
            value={state.machineType}
            error={errors['placement.machineType']}
            hint={
              machine?.vcpus
                ? `${machine.vcpus} vCPU, ${machine.memoryMiB} MiB memory${provider?.catalogue?.diskSizeGb ? `, ${provider.catalogue.diskSizeGb} GB disk` : ''}`
                : undefined
            }
            catalogue={provider?.catalogue}
            onChange={set('machineType')}
          />
          <ImageSelect
            id="proxy-image"
            value={state.image}
            error={state.image === customImage ? undefined : errors['placement.image']}
            hint="The first Proxy for an image on a host downloads it into the host's pool; later ones start from the cached copy."
            catalogue={provider?.catalogue}
            urlOption={customImage}
            onChange={set('image')}
          />
          {state.image === customImage ? (
            <TextField
              id="proxy-image-url"
              label="Image URL"
              error={errors['placement.image']}
              hint="http(s) URL of a qcow2 cloud image; the server must send Content-Length."
              type="url"
              value={state.imageUrl}
              onChange={set('imageUrl')}
            />
          ) : null}
          <TextField
            id="proxy-port"
            label="Port"
            error={errors.port}
            hint="The port the proxy listens on inside the VM."
            inputMode="numeric"
            value={state.port}
            onChange={set('port')}
          />
        </div>
      </Panel>
      <Panel title="Labels">
        <LabelsEditor rows={state.labels} onChange={set('labels')} error={errors.labels} />
      </Panel>
      <Panel title="Cloud-init">
        <CloudInitFields state={state.cloudInit} onChange={set('cloudInit')} port={Number(state.port)} errors={errors} />
      </Panel>
      <FormActions label="Create Proxy" pendingLabel="Creating…" pending={create.isPending} cancelHref="/proxies" />
    </form>
  );
}

export function CreateProxyForm() {
  return (
    <WithProviders whyHosts="A Proxy runs on one of your hosts, and none is configured yet.">
      {(providers) => <CreateProxyFields providers={providers} />}
    </WithProviders>
  );
}
