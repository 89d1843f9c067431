// The Proxy edit form's state (from the Proxy as the API shows it) → the PUT body, checked with the
// server's own schema, and what saving it would do: labels are outside the spec hash (relabelled in
// place), anything else in it replaces the VM (server/control/names.ts specHash).
import { fieldErrors, proxyUpdateSchema, type ProxyUpdateInput, type ProxyView } from '@/lib/proxy-spec';
import type { FieldMessages } from '@/components/api/client';
import { type CloudInitState, resolveCloudInit } from './cloud-init-fields';
import { fieldKey } from './create-form-model';
import { labelsFromRows, type LabelRow } from './labels-editor';

export interface EditFormState {
  zone: string;
  machineType: string;
  image: string;
  address: string;
  port: string;
  labels: LabelRow[];
  cloudInit: CloudInitState;
}

export function editStateFrom(proxy: ProxyView): EditFormState {
  return {
    zone: proxy.placement?.zone ?? '',
    machineType: proxy.placement?.machineType ?? '',
    image: proxy.placement?.image ?? '',
    address: proxy.address ?? '',
    port: String(proxy.port),
    labels: Object.entries(proxy.labels).map(([key, value], index) => ({ id: index + 1, key, value })),
    cloudInit: { source: proxy.cloudInit?.bytes ? 'keep' : 'none', networks: '', pasted: '' },
  };
}

const portValue = (text: string): unknown => (/^\s*\d+\s*$/.test(text) ? Number(text) : text);

/** The PUT body (mode and provider cannot change) and the problems found before sending it. */
export function buildUpdate(state: EditFormState, proxy: ProxyView): { input: ProxyUpdateInput; errors: FieldMessages } {
  const port = portValue(state.port);
  const labels = labelsFromRows(state.labels);
  const errors: FieldMessages = {};
  let input: ProxyUpdateInput;
  if (proxy.mode === 'Static') {
    input = { mode: 'Static', address: state.address.trim(), port, labels } as ProxyUpdateInput;
  } else {
    const cloudInit = resolveCloudInit(state.cloudInit, typeof port === 'number' ? port : Number.NaN);
    if (cloudInit.error) errors[cloudInit.field ?? 'networks'] = cloudInit.error;
    input = {
      mode: 'Managed',
      provider: proxy.provider ?? '',
      placement: { ...(state.zone ? { zone: state.zone } : {}), machineType: state.machineType.trim(), image: state.image.trim() },
      port,
      labels,
      ...(cloudInit.cloudInit === undefined ? {} : { cloudInit: cloudInit.cloudInit }),
    } as ProxyUpdateInput;
  }
  const parsed = proxyUpdateSchema.safeParse(input);
  if (!parsed.success) for (const issue of fieldErrors(parsed.error)) errors[fieldKey(issue.path)] ??= issue.message;
  return { input, errors };
}

export interface ProxyChange {
  kind: 'none' | 'labels' | 'replace';
  message: string;
}

const sameLabels = (a: Record<string, string>, b: Record<string, string>): boolean =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([key, value]) => b[key] === value);

/** What saving `input` over `proxy` does, in the words the form shows before Save. */
export function describeProxyChange(proxy: ProxyView, input: ProxyUpdateInput): ProxyChange {
  const changed: string[] = [];
  if (input.mode === 'Managed') {
    const placement = proxy.placement;
    if ((input.placement.zone ?? '') !== (placement?.zone ?? '')) changed.push('host (zone)');
    if (input.placement.machineType !== placement?.machineType) changed.push('machine type');
    if (input.placement.image !== placement?.image) changed.push('image');
    // Kept cloud-init is left out of the body; any text given is taken as a change (the API never
    // sends the stored bytes back to compare with).
    if (input.cloudInit !== undefined && !(input.cloudInit === '' && !proxy.cloudInit?.bytes)) changed.push('cloud-init');
  } else if (input.address !== proxy.address) changed.push('address');
  if ((input.port ?? proxy.port) !== proxy.port) changed.push('port');
  if (changed.length > 0) {
    const list = changed.join(', ');
    const message =
      proxy.mode === 'Managed'
        ? `The VM is replaced (${list} changed): a new VM is made from the new spec and the old one destroyed; the address may change.`
        : `The record changes (${list}): crawler clients get the new address; no VM is involved.`;
    return { kind: 'replace', message };
  }
  if (!sameLabels((input.labels ?? {}) as Record<string, string>, proxy.labels))
    return { kind: 'labels', message: 'Labels only: the VM is not replaced; crawler clients see the new labels at once.' };
  return { kind: 'none', message: 'Nothing changes: the form is as the Proxy is now.' };
}
