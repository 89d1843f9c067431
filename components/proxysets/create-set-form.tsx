'use client';
// Create a set: the Proxy form's fields (without a host: the set spreads its members) plus replicas
// and the controller's limits, and where the members would go now (POST /api/proxysets/preview).
import { useRouter } from 'next/navigation';
import { useDeferredValue, useState } from 'react';
import { type FieldMessages, hasCode } from '@/components/api/client';
import type { ConfigProvider } from '@/components/config/queries';
import { WithProviders } from '@/components/config/with-providers';
import { Button, LinkButton } from '@/components/ui/button';
import { ErrorPanel } from '@/components/ui/error-panel';
import { Field, controlClass } from '@/components/ui/field';
import { Panel } from '@/components/ui/panel';
import { SkeletonRows } from '@/components/ui/skeleton';
import { HostsBar } from './hosts-bar';
import { useCreateProxySet, useProxySetPreview } from './queries';
import { buildSetCreate, initialSetState, setFieldKey, type SetFormState } from './set-form-model';
import { SettingsFields } from './settings-fields';
import { TemplateFields } from './template-fields';

function PlacementPreview({ state }: { state: SetFormState }) {
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
      const fields: FieldMessages = {};
      if (hasCode(err, 'ERR_INVALID_INPUT')) for (const [path, message] of Object.entries(err.fields)) fields[setFieldKey(path)] ??= message;
      setErrors(fields);
      setFormError(fields[''] ?? (Object.keys(fields).length === 0 && err instanceof Error ? err.message : undefined));
    }
  }

  const count = Object.keys(errors).length;
  return (
    <form noValidate onSubmit={submit} className="space-y-6">
      {formError || count > 0 ? (
        <p role="alert" className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900">
          {formError ?? `${count} ${count === 1 ? 'field needs' : 'fields need'} a change before the set can be created.`}
        </p>
      ) : null}
      <Panel title="Set">
        <Field id="set-name" label="Name" error={errors.name} hint="Lower-case letters, digits and dashes; members are named <set>-<5 characters>.">
          {(aria) => (
            <input
              {...aria}
              className={`${controlClass} md:w-1/2`}
              value={state.name}
              onChange={(event) => patch({ name: event.target.value })}
              autoComplete="off"
            />
          )}
        </Field>
      </Panel>
      <TemplateFields state={state} onChange={patch} errors={errors} providers={providers} />
      <SettingsFields state={state} onChange={patch} errors={errors} />
      <Panel title="Where the members would go">
        <PlacementPreview state={state} />
      </Panel>
      <div className="flex flex-wrap gap-3">
        <Button type="submit" tone="primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create set'}
        </Button>
        <LinkButton href="/sets">Cancel</LinkButton>
      </div>
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
