'use client';
// GET /api/config: the validated providers config summary (catalogue of hosts, images and machine
// types per provider) and the last reload error. Normalised here, so the rest of the dashboard
// reads one shape whether the API sends a catalogue as a list or as a map keyed by name.
import { useQuery } from '@tanstack/react-query';
import { getJson } from '@/components/api/client';

export interface CatalogueHost {
  name: string;
  address?: string;
  user?: string;
  pool?: string;
  bridge?: string;
}

export interface CatalogueImage {
  key: string;
  url?: string;
  format?: string;
  firmware?: string;
  sha256?: string;
}

export interface CatalogueMachineType {
  name: string;
  vcpus?: number;
  memoryMiB?: number;
}

export interface ConfigProvider {
  name: string;
  type: string;
  available: boolean;
  reason?: string;
  hosts: CatalogueHost[];
  images: CatalogueImage[];
  machineTypes: CatalogueMachineType[];
  diskSizeGb?: number;
}

export interface ConfigSummary {
  /** the providers config file the server reads; absent when none is set */
  source?: string;
  loadedAt?: string;
  providers: ConfigProvider[];
  lastError?: { at: string; issues: string[] };
}

type Loose = Record<string, unknown>;

/** A list of objects, or a map name → object (the name moved into `field`). */
function entries(value: unknown, field: string): Loose[] {
  if (Array.isArray(value)) return value.filter((item): item is Loose => !!item && typeof item === 'object');
  if (value && typeof value === 'object') return Object.entries(value as Loose).map(([name, item]) => ({ ...(item as Loose), [field]: name }));
  return [];
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const number = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

function toProvider(raw: Loose): ConfigProvider {
  // The catalogue may sit on the entry or under its type's block (`kvm2: {hosts, images, ...}`).
  const block = (raw[text(raw.type) ?? ''] ?? raw.catalogue ?? raw) as Loose;
  const pick = (key: string) => raw[key] ?? block[key];
  return {
    name: text(raw.name) ?? '',
    type: text(raw.type) ?? '',
    available: raw.available !== false,
    ...(text(raw.reason) ? { reason: text(raw.reason) } : {}),
    hosts: entries(pick('hosts'), 'name').map((host) => ({
      name: text(host.name) ?? '',
      address: text(host.address),
      user: text(host.user),
      pool: text(host.pool),
      bridge: text(host.bridge),
    })),
    images: entries(pick('images'), 'key').map((image) => ({
      key: text(image.key) ?? text(image.name) ?? '',
      url: text(image.url),
      format: text(image.format),
      firmware: text(image.firmware),
      sha256: text(image.sha256),
    })),
    machineTypes: entries(pick('machineTypes'), 'name').map((type) => ({ name: text(type.name) ?? '', vcpus: number(type.vcpus), memoryMiB: number(type.memoryMiB) })),
    diskSizeGb: number(pick('diskSizeGb')),
  };
}

export function toConfigSummary(raw: unknown): ConfigSummary {
  const body = (raw ?? {}) as Loose;
  const lastError = body.lastError as ConfigSummary['lastError'] | undefined;
  return {
    source: text(body.source) ?? text(body.path),
    loadedAt: text(body.loadedAt),
    providers: entries(body.providers, 'name').map(toProvider),
    ...(lastError && Array.isArray(lastError.issues) ? { lastError } : {}),
  };
}

export const configKeys = { summary: ['config'] as const };

export function useConfig() {
  return useQuery({
    queryKey: configKeys.summary,
    queryFn: async (context) => toConfigSummary(await getJson<unknown>('/api/config')(context)),
    refetchInterval: 15_000,
  });
}
