'use client';
// Edit a set: its template (the Proxy fields and cloud-init editor) and its knobs. Before Save the
// form asks the server what the change would do (.../plan: nothing, settings, relabel in place, or a
// rolling replacement of N members) and says it; Save sends the same body as a PUT.
import { useRouter } from 'next/navigation';
import { useDeferredValue, useMemo, useState } from 'react';
import type { ProxySetView } from '@/lib/api/proxysets';
import { type FieldMessages, formMessage, hasCode } from '@/components/api/client';
import { type ConfigProvider, useConfig } from '@/components/config/queries';
import { ErrorPanel } from '@/components/ui/error-panel';
import { FormActions } from '@/components/ui/form-actions';
import { FormError } from '@/components/ui/form-error';
import { SkeletonRows } from '@/components/ui/skeleton';
import { useYamlCheck } from '@/components/proxies/use-yaml-check';
import { useProxySet, useProxySetPlan, useUpdateProxySet } from './queries';
import { buildSetUpdate, setFieldsFromServer, type SetFormState, setStateFrom } from './set-form-model';
import { SettingsFields } from './settings-fields';
import { TemplateFields } from './template-fields';

const planTone = {
  none: 'border-slate-300 bg-slate-50 text-slate-800',
  settings: 'border-slate-300 bg-slate-50 text-slate-800',
  labels: 'border-emerald-300 bg-emerald-50 text-emerald-950',
  template: 'border-amber-300 bg-amber-50 text-amber-950',
};

function PlanSummary({ name, input, ready }: { name: string; input: Parameters<typeof useProxySetPlan>[1]; ready: boolean }) {
  const plan = useProxySetPlan(name, useDeferredValue(ready ? input : undefined));
  if (!ready)
    return (
      <p className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900" role="status" data-testid="set-plan">
        Fix the fields marked above to see what saving would do.
      </p>
    );
  if (plan.isPending) return <SkeletonRows rows={1} label="what saving would do" />;
  if (plan.isError) return <ErrorPanel title="Could not work out what saving would do" error={plan.error} />;
  const { change, message, replaced } = plan.data;
  return (
    <p role="status" data-testid="set-plan" data-change={change} className={`rounded-md border p-3 text-sm ${planTone[change]}`}>
      {change === 'template' ? <strong>{`Rolling replacement of ${replaced} ${replaced === 1 ? 'member' : 'members'}: `}</strong> : null}
      {change === 'labels' ? <strong>Nothing is replaced: </strong> : null}
      {message}
    </p>
  );
}

function EditSetFields({ set, providers }: { set: ProxySetView; providers: ConfigProvider[] }) {
  const router = useRouter();
  const update = useUpdateProxySet(set.name);
  const [state, setState] = useState<SetFormState>(() => setStateFrom(set));
  const [errors, setErrors] = useState<FieldMessages>({});
  const [formError, setFormError] = useState<string>();
  const patch = (next: Partial<SetFormState>) => setState((previous) => ({ ...previous, ...next }));
  const yamlCheckLoaded = useYamlCheck();
  // eslint-disable-next-line react-hooks/exhaustive-deps -- checkCloudInit answers a cloud-config once the YAML check has loaded
  const built = useMemo(() => buildSetUpdate(state, set.paused), [state, set.paused, yamlCheckLoaded]);
  const valid = Object.keys(built.errors).length === 0;
  // The editor's own check shows as it is typed; the rest once Save was tried.
  const shown = { ...errors, ...(built.errors.cloudInit ? { cloudInit: built.errors.cloudInit } : {}) };

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    setFormError(undefined);
    setErrors(built.errors);
    if (!valid) return;
    try {
      await update.mutateAsync(built.input);
      router.push(`/sets/${encodeURIComponent(set.name)}`);
    } catch (err) {
      const fields = hasCode(err, 'ERR_INVALID_INPUT') ? setFieldsFromServer(err.fields) : {};
      setErrors(fields);
      setFormError(formMessage(err, fields));
    }
  }

  return (
    <form noValidate onSubmit={submit} className="space-y-6">
      <FormError message={formError} />
      <TemplateFields state={state} onChange={patch} errors={shown} providers={providers} editing={{ cloudInitBytes: set.template.cloudInit.bytes }} />
      <SettingsFields state={state} onChange={patch} errors={shown} />
      <PlanSummary name={set.name} input={built.input} ready={valid} />
      <FormActions label="Save" pendingLabel="Saving…" pending={update.isPending} disabled={!valid} cancelHref={`/sets/${encodeURIComponent(set.name)}`} />
    </form>
  );
}

export function EditSetForm({ name }: { name: string }) {
  const set = useProxySet(name);
  const config = useConfig();
  if (set.isPending || config.isPending) return <SkeletonRows rows={6} label="the set" />;
  if (set.isError) return <ErrorPanel title="Could not load the set" error={set.error} onRetry={() => void set.refetch()} />;
  if (config.isError) return <ErrorPanel title="Could not load the providers config" error={config.error} onRetry={() => void config.refetch()} />;
  return <EditSetFields set={set.data} providers={config.data.providers} />;
}
