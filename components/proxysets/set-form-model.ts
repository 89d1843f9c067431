// The set form's state → the POST/PUT body, checked with the server's own schemas (create, update);
// zod's and the server's messages land on the same field keys. Shared by create and edit.
import { fieldErrors } from '@/lib/proxy-spec';
import { proxySetCreateSchema, type ProxySetCreateInput, proxySetUpdateSchema, type ProxySetUpdateInput } from '@/lib/api/proxyset-spec';
import type { ProxySetView } from '@/lib/api/proxysets';
import type { FieldMessages } from '@/components/api/client';
import type { ConfigProvider } from '@/components/config/queries';
import { type CloudInitState, resolveCloudInit } from '@/components/proxies/cloud-init-fields';
import { fieldKey } from '@/components/proxies/create-form-model';
import { labelsFromRows, type LabelRow } from '@/components/proxies/labels-editor';

export interface SetFormState {
  name: string;
  provider: string;
  machineType: string;
  image: string;
  port: string;
  labels: LabelRow[];
  cloudInit: CloudInitState;
  replicas: string;
  readyTimeout: string;
  budgetMax: string;
  budgetWindow: string;
  hostDownGrace: string;
  maxSurge: string;
  maxUnavailable: string;
}

const only = <T>(items: T[]): T | undefined => (items.length === 1 ? items[0] : undefined);

export function initialSetState(providers: ConfigProvider[]): SetFormState {
  const provider = only(providers);
  return {
    name: '',
    provider: provider?.name ?? '',
    machineType: only(provider?.catalogue?.machineTypes ?? [])?.name ?? '',
    image: only(provider?.catalogue?.images ?? [])?.key ?? '',
    port: '3128',
    labels: [],
    cloudInit: { source: 'squid', networks: '', pasted: '' },
    replicas: '3',
    readyTimeout: '10m',
    budgetMax: '',
    budgetWindow: '30m',
    hostDownGrace: '5m',
    maxSurge: '1',
    maxUnavailable: '0',
  };
}

export function setStateFrom(set: ProxySetView): SetFormState {
  return {
    name: set.name,
    provider: set.template.provider,
    machineType: set.template.placement.machineType,
    image: set.template.placement.image,
    port: String(set.template.port),
    labels: Object.entries(set.template.labels).map(([key, value], index) => ({ id: index + 1, key, value })),
    cloudInit: { source: set.template.cloudInit.bytes > 0 ? 'keep' : 'none', networks: '', pasted: '' },
    replicas: String(set.replicas),
    readyTimeout: set.readyTimeout,
    // The view resolves an unset max to the replicas; shown empty it keeps following them.
    budgetMax: set.replacementBudget.max === set.replicas ? '' : String(set.replacementBudget.max),
    budgetWindow: set.replacementBudget.window,
    hostDownGrace: set.hostDownGrace,
    maxSurge: String(set.maxSurge),
    maxUnavailable: String(set.maxUnavailable),
  };
}

/** "3" → 3; anything else goes to zod as-is so its message names the problem. */
const numberValue = (text: string): unknown => (/^\s*\d+\s*$/.test(text) ? Number(text) : text);

function body(state: SetFormState, paused: boolean) {
  const port = numberValue(state.port);
  const cloudInit = resolveCloudInit(state.cloudInit, typeof port === 'number' ? port : Number.NaN);
  const fields = {
    template: {
      provider: state.provider,
      placement: { machineType: state.machineType.trim(), image: state.image.trim() },
      port,
      labels: labelsFromRows(state.labels),
      ...(cloudInit.cloudInit === undefined ? {} : { cloudInit: cloudInit.cloudInit }),
    },
    replicas: numberValue(state.replicas),
    readyTimeout: state.readyTimeout.trim(),
    replacementBudget: { ...(state.budgetMax.trim() === '' ? {} : { max: numberValue(state.budgetMax) }), window: state.budgetWindow.trim() },
    hostDownGrace: state.hostDownGrace.trim(),
    maxSurge: numberValue(state.maxSurge),
    maxUnavailable: numberValue(state.maxUnavailable),
    paused,
  };
  const errors: FieldMessages = {};
  if (cloudInit.error) errors[cloudInit.field ?? 'networks'] = cloudInit.error;
  return { fields, errors };
}

/** Every label problem shows under the labels editor; template fields by their own name. */
export const setFieldKey = (path: string): string => fieldKey(path.replace(/^template\./, ''));

/** The server's 400 on a set, keyed like the form's own messages. */
export function setFieldsFromServer(fields: FieldMessages): FieldMessages {
  const mapped: FieldMessages = {};
  for (const [path, message] of Object.entries(fields)) mapped[setFieldKey(path)] ??= message;
  return mapped;
}

function collect(errors: FieldMessages, result: { success: boolean; error?: Parameters<typeof fieldErrors>[0] }): FieldMessages {
  if (!result.success && result.error) for (const issue of fieldErrors(result.error)) errors[setFieldKey(issue.path)] ??= issue.message;
  return errors;
}

export function buildSetCreate(state: SetFormState): { input: ProxySetCreateInput; errors: FieldMessages } {
  const { fields, errors } = body(state, false);
  const input = { name: state.name.trim(), ...fields } as ProxySetCreateInput;
  return { input, errors: collect(errors, proxySetCreateSchema.safeParse(input)) };
}

export function buildSetUpdate(state: SetFormState, paused: boolean): { input: ProxySetUpdateInput; errors: FieldMessages } {
  const { fields, errors } = body(state, paused);
  const input = fields as ProxySetUpdateInput;
  return { input, errors: collect(errors, proxySetUpdateSchema.safeParse(input)) };
}
