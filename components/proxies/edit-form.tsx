'use client';
// Edit a Proxy: every spec field (mode and provider aside, which cannot change), the cloud-init in
// the checking editor, and before Save what the change does: labels only relabel in place, anything
// in the spec hash replaces the VM. Members of a set are changed through their set.
import { useRouter } from 'next/navigation';
import { useMemo, useState } from 'react';
import type { ProxyView } from '@/lib/proxy-spec';
import { proxySetLabel } from '@/lib/api/proxyset-spec';
import { type FieldMessages, formMessage, hasCode } from '@/components/api/client';
import { useConfig } from '@/components/config/queries';
import { LinkButton } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';
import { ErrorPanel } from '@/components/ui/error-panel';
import { Field, controlClass } from '@/components/ui/field';
import { FormActions } from '@/components/ui/form-actions';
import { FormError } from '@/components/ui/form-error';
import { Panel } from '@/components/ui/panel';
import { SkeletonRows } from '@/components/ui/skeleton';
import { TextField } from '@/components/ui/text-field';
import { CatalogueSelect } from './catalogue-select';
import { CloudInitFields } from './cloud-init-fields';
import { fieldsFromServer } from './create-form-model';
import { buildUpdate, describeProxyChange, editStateFrom, type EditFormState } from './edit-form-model';
import { LabelsEditor } from './labels-editor';
import { useProxy, useUpdateProxy } from './queries';
import { useYamlCheck } from './use-yaml-check';

const changeTone = {
  none: 'border-slate-300 bg-slate-50 text-slate-800',
  labels: 'border-emerald-300 bg-emerald-50 text-emerald-950',
  replace: 'border-amber-300 bg-amber-50 text-amber-950',
};

function EditFields({ proxy }: { proxy: ProxyView }) {
  const router = useRouter();
  const update = useUpdateProxy(proxy.name);
  const config = useConfig();
  const catalogue = config.data?.providers.find((entry) => entry.name === proxy.provider)?.catalogue;
  const [state, setState] = useState<EditFormState>(() => editStateFrom(proxy));
  const [errors, setErrors] = useState<FieldMessages>({});
  const [formError, setFormError] = useState<string>();
  const set =
    <K extends keyof EditFormState>(key: K) =>
    (value: EditFormState[K]) =>
      setState((previous) => ({ ...previous, [key]: value }));
  const yamlCheckLoaded = useYamlCheck();
  // eslint-disable-next-line react-hooks/exhaustive-deps -- checkCloudInit answers a cloud-config once the YAML check has loaded
  const built = useMemo(() => buildUpdate(state, proxy), [state, proxy, yamlCheckLoaded]);
  const change = describeProxyChange(proxy, built.input);

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    setFormError(undefined);
    setErrors(built.errors);
    if (Object.keys(built.errors).length > 0) return;
    try {
      await update.mutateAsync(built.input);
      router.push(`/proxies/${encodeURIComponent(proxy.name)}`);
    } catch (err) {
      const fields = hasCode(err, 'ERR_INVALID_INPUT', 'ERR_PROXY_INVALID') ? fieldsFromServer(err.fields) : {};
      setErrors(fields);
      setFormError(formMessage(err, fields));
    }
  }

  return (
    <form noValidate onSubmit={submit} className="space-y-6">
      <FormError message={formError} />
      <Panel title={proxy.mode === 'Managed' ? `Placement on ${proxy.provider ?? 'its provider'}` : 'Address'}>
        <div className="grid gap-4 md:grid-cols-2">
          {proxy.mode === 'Managed' ? (
            <>
              <CatalogueSelect
                id="proxy-zone"
                label="Host (zone)"
                value={state.zone}
                error={errors['placement.zone']}
                placeholder="Best host (automatic)"
                options={(catalogue?.hosts ?? []).map((host) => ({ value: host.name, label: host.name }))}
                onChange={set('zone')}
              />
              <CatalogueSelect
                id="proxy-machine-type"
                label="Machine type"
                value={state.machineType}
                error={errors['placement.machineType']}
                placeholder="Choose a machine type"
                options={(catalogue?.machineTypes ?? []).map((type) => ({ value: type.name, label: type.name }))}
                onChange={set('machineType')}
              />
              <Field id="proxy-image" label="Image" error={errors['placement.image']} hint="A catalogue image key or an http(s) URL of a qcow2 cloud image.">
                {(aria) => (
                  <>
                    <input
                      {...aria}
                      list="proxy-image-options"
                      className={controlClass}
                      value={state.image}
                      onChange={(event) => set('image')(event.target.value)}
                      autoComplete="off"
                    />
                    <datalist id="proxy-image-options">
                      {(catalogue?.images ?? []).map((image) => (
                        <option key={image.key} value={image.key} />
                      ))}
                    </datalist>
                  </>
                )}
              </Field>
            </>
          ) : (
            <TextField
              id="proxy-address"
              label="Address"
              error={errors.address}
              hint="Host name or IP address of the proxy."
              value={state.address}
              onChange={set('address')}
              autoComplete="off"
            />
          )}
          <TextField id="proxy-port" label="Port" error={errors.port} inputMode="numeric" value={state.port} onChange={set('port')} />
        </div>
      </Panel>
      <Panel title="Labels">
        <LabelsEditor rows={state.labels} onChange={set('labels')} error={errors.labels} />
      </Panel>
      {proxy.mode === 'Managed' ? (
        <Panel title="Cloud-init">
          <CloudInitFields
            state={state.cloudInit}
            onChange={set('cloudInit')}
            port={Number(state.port)}
            errors={errors}
            {...(proxy.cloudInit?.bytes ? { stored: proxy.cloudInit } : {})}
          />
        </Panel>
      ) : null}
      <p role="status" data-testid="change-summary" className={`rounded-md border p-3 text-sm ${changeTone[change.kind]}`}>
        {change.message}
      </p>
      <FormActions
        label={change.kind === 'replace' && proxy.mode === 'Managed' ? 'Save and replace the VM' : 'Save'}
        pendingLabel="Saving…"
        pending={update.isPending}
        disabled={change.kind === 'none'}
        cancelHref={`/proxies/${encodeURIComponent(proxy.name)}`}
      />
    </form>
  );
}

export function EditProxyForm({ name }: { name: string }) {
  const proxy = useProxy(name);
  if (proxy.isPending) return <SkeletonRows rows={6} label="the Proxy" />;
  if (proxy.isError) return <ErrorPanel title="Could not load the Proxy" error={proxy.error} onRetry={() => void proxy.refetch()} />;
  const set = proxy.data.labels[proxySetLabel];
  if (set) {
    return (
      <EmptyState
        title={`${name} belongs to the set ${set}`}
        action={
          <LinkButton href={`/sets/${encodeURIComponent(set)}/edit`} tone="primary">
            Edit the set
          </LinkButton>
        }
      >
        Members of a set are made from its template: edit the set, and its members are replaced, rolling.
      </EmptyState>
    );
  }
  return <EditFields proxy={proxy.data} />;
}
