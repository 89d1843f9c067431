'use client';
// Create a set: the Proxy form's fields (without a host: the set spreads its members) plus replicas
// and the controller's limits, and where the members would go now (POST /api/proxysets/preview).
import { useRouter } from 'next/navigation';
import { useDeferredValue, useState } from 'react';
import { type FieldMessages, formMessage, hasCode } from '@/components/api/client';
import type { ConfigProvider } from '@/components/config/queries';
import { WithProviders } from '@/components/config/with-providers';
import { ErrorPanel } from '@/components/ui/error-panel';
import { FormActions } from '@/components/ui/form-actions';
import { FormError } from '@/components/ui/form-error';
import { Panel } from '@/components/ui/panel';
import { SkeletonRows } from '@/components/ui/skeleton';
import { TextField } from '@/components/ui/text-field';
import { useYamlCheck } from '@/components/proxies/use-yaml-check';
import { HostsBar } from './hosts-bar';
import { useCreateProxySet, useProxySetPreview } from './queries';
import { buildSetCreate, initialSetState, setFieldsFromServer, type SetFormState } from './set-form-model';
import { SettingsFields } from './settings-fields';
import { TemplateFields } from './template-fields';

function PlacementPreview({ state }: { state: SetFormState }) {
  useYamlCheck();
  const built = buildSetCreate({ ...state, name: state.name || 'preview-set' });
  const ready = Object.keys(built.errors).length === 0;
  const preview = useProxySetPreview(useDeferredValue(ready ? built.input : undefined));
  if (!ready) return <p className="text-sm text-slate-600">Fill in the template and replicas to see where the members would go.</p>;
  if (preview.isPending) return <SkeletonRows rows={2} label="where the members would go" />;
  if (preview.isError) return <ErrorPanel title="Could not work out where the members would go" error={preview.error} />;
  const { hosts, unplaced, replicas } = preview.data;
  return (
    <div className="space-y-2" data-testid="set-preview">
      <HostsBar
        label="Where the members would go"
        hosts={hosts.map((host) => ({ host: host.host, members: host.members, ...(host.eligible ? {} : { note: host.reason ?? 'not eligible' }) }))}
      />
      <p className="text-sm text-slate-700">
        {unplaced > 0
          ? `${replicas - unplaced} of ${replicas} members have a host now; ${unplaced} would wait for room.`
          : `All ${replicas} members have a host now, spread as shown.`}
      </p>
    </div>
  );
}

function CreateSetFields({ providers }: { providers: ConfigProvider[] }) {
  const router = useRouter();
  const create = useCreateProxySet();
  const [state, setState] = useState<SetFormState>(() => initialSetState(providers));
  const [errors, setErrors] = useState<FieldMessages>({});
  const [formError, setFormError] = useState<string>();
  const patch = (next: Partial<SetFormState>) => setState((previous) => ({ ...previous, ...next }));

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    setFormError(undefined);
    const { input, errors: found } = buildSetCreate(state);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    try {
      await create.mutateAsync(input);
      router.push(`/sets/${encodeURIComponent(input.name)}`);
    } catch (err) {
      const fields = hasCode(err, 'ERR_INVALID_INPUT') ? setFieldsFromServer(err.fields) : {};
      setErrors(fields);
      setFormError(formMessage(err, fields));
    }
  }

  const count = Object.keys(errors).length;
  return (
    <form noValidate onSubmit={submit} className="space-y-6">
      <FormError
        message={formError ?? (count > 0 ? `${count} ${count === 1 ? 'field needs' : 'fields need'} a change before the set can be created.` : undefined)}
      />
      <Panel title="Set">
        <TextField
          id="set-name"
          label="Name"
          error={errors.name}
          hint="Lower-case letters, digits and dashes; members are named <set>-<5 characters>."
          className="md:w-1/2"
          value={state.name}
          onChange={(name) => patch({ name })}
          autoComplete="off"
        />
      </Panel>
      <TemplateFields state={state} onChange={patch} errors={errors} providers={providers} />
      <SettingsFields state={state} onChange={patch} errors={errors} />
      <Panel title="Where the members would go">
        <PlacementPreview state={state} />
      </Panel>
      <FormActions label="Create set" pendingLabel="Creating…" pending={create.isPending} cancelHref="/sets" />
    </form>
  );
}

export function CreateSetForm() {
  return (
    <WithProviders whyHosts="The members of a set run on your hosts, and none is configured yet.">
      {(providers) => <CreateSetFields providers={providers} />}
    </WithProviders>
  );
}
