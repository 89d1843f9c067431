// The create form's state → the POST body, validated with the same zod schema the server uses;
// zod's and the server's messages land on the same field keys.
import { fieldErrors, proxyCreateSchema, type ProxyCreateInput } from '@/lib/proxy-spec';
import type { FieldMessages } from '@/components/api/client';
import type { ConfigProvider } from '@/components/config/queries';
import { type CloudInitState, resolveCloudInit } from './cloud-init-fields';
import { labelsFromRows, type LabelRow } from './labels-editor';

export const customImage = '__url__';

export interface CreateFormState {
  name: string;
  provider: string;
  zone: string;
  machineType: string;
  image: string;
  imageUrl: string;
  port: string;
  labels: LabelRow[];
  cloudInit: CloudInitState;
}

const only = <T>(items: T[]): T | undefined => (items.length === 1 ? items[0] : undefined);

/** Defaults: every choice with a single option is made already. */
export function initialFormState(providers: ConfigProvider[], name: string): CreateFormState {
  const provider = only(providers);
  return {
    name,
    provider: provider?.name ?? '',
    ...choicesFor(provider),
    imageUrl: '',
    port: '3128',
    labels: [],
    cloudInit: { source: 'squid', networks: '', pasted: '' },
  };
}

export function choicesFor(provider: ConfigProvider | undefined): Pick<CreateFormState, 'zone' | 'machineType' | 'image'> {
  return {
    zone: only(provider?.catalogue?.hosts ?? [])?.name ?? '',
    machineType: only(provider?.catalogue?.machineTypes ?? [])?.name ?? '',
    image: only(provider?.catalogue?.images ?? [])?.key ?? '',
  };
}

/** "3128" → 3128; anything else goes to zod as-is so its message names the problem. */
const portValue = (text: string): unknown => (/^\s*\d+\s*$/.test(text) ? Number(text) : text);

export function buildInput(state: CreateFormState): { input: ProxyCreateInput; errors: FieldMessages } {
  const port = portValue(state.port);
  const cloudInit = resolveCloudInit(state.cloudInit, typeof port === 'number' ? port : Number.NaN);
  const input = {
    name: state.name.trim(),
    mode: 'Managed',
    provider: state.provider,
    placement: {
      ...(state.zone ? { zone: state.zone } : {}),
      machineType: state.machineType,
      image: state.image === customImage ? state.imageUrl.trim() : state.image,
    },
    port,
    labels: labelsFromRows(state.labels),
    cloudInit: cloudInit.cloudInit,
  } as ProxyCreateInput;
  const errors: FieldMessages = {};
  const parsed = proxyCreateSchema.safeParse(input);
  if (!parsed.success) {
    for (const issue of fieldErrors(parsed.error)) errors[fieldKey(issue.path)] ??= issue.message;
  }
  if (cloudInit.error) errors[cloudInit.field ?? 'networks'] = cloudInit.error;
  return { input, errors };
}

/** Every label problem shows under the labels editor, whatever the key it names. */
export function fieldKey(path: string): string {
  return path.startsWith('labels') ? 'labels' : path;
}

export function fieldsFromServer(fields: FieldMessages): FieldMessages {
  const mapped: FieldMessages = {};
  for (const [path, message] of Object.entries(fields)) mapped[fieldKey(path)] ??= message;
  return mapped;
}

/** The order fields appear in, to focus the first one in error. */
export const fieldOrder = [
  'name',
  'provider',
  'placement.zone',
  'placement.machineType',
  'placement.image',
  'port',
  'labels',
  'networks',
  'cloudInit',
] as const;

export const fieldElementId: Record<(typeof fieldOrder)[number], string> = {
  name: 'proxy-name',
  provider: 'proxy-provider',
  'placement.zone': 'proxy-zone',
  'placement.machineType': 'proxy-machine-type',
  'placement.image': 'proxy-image',
  port: 'proxy-port',
  labels: 'labels-error',
  networks: 'squid-networks',
  cloudInit: 'cloud-init',
};
