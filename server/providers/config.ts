// The providers config: a YAML list of entries `{name, type, <type>: {...}}`, read once per
// process. Validation collects every problem; each message names the entry and, inside the block,
// the block and path (`provider "kvm2-home": kvm2.hosts[0]: bridge is required`).
import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { formatIssue, withoutNulls } from './config-messages';
import { kvm2BlockSchema, kvm2EntryIssues, type Kvm2Block } from './config-kvm2';

export interface Kvm2Entry {
  name: string;
  type: 'kvm2';
  kvm2: Kvm2Block;
}

/** One configured provider. A union as more types are added. */
export type ProviderEntry = Kvm2Entry;
export type ProviderType = ProviderEntry['type'];
export type ProvidersConfig = ProviderEntry[];

interface ProviderTypeRule {
  block: z.ZodType;
  /** rules on the entry as a whole, beyond the block (e.g. what its name may contain) */
  entryIssues: (name: string) => string[];
}

// One row per provider type this server runs. The block key always equals the type.
const providerTypes: Record<ProviderType, ProviderTypeRule> = {
  kvm2: { block: kvm2BlockSchema, entryIssues: kvm2EntryIssues },
};

// Types of the original operator that this server does not run, with what to do instead.
const retiredTypeHints: Record<string, string> = {
  kvm: 'the first-generation kvm provider does not run here; use type kvm2 with a kvm2: block (same fields)',
};

export class ProvidersConfigError extends Error {
  readonly code = 'ERR_PROVIDERS_CONFIG';
  readonly source: string;
  readonly issues: readonly string[];

  constructor(options: { source: string; issues: string[]; cause?: unknown }) {
    super(`providers config ${options.source}: ${options.issues.join('; ')}`, { cause: options.cause });
    this.name = 'ProvidersConfigError';
    this.source = options.source;
    this.issues = options.issues;
  }
}

const isMapping = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function isKnownType(type: string): type is ProviderType {
  return Object.hasOwn(providerTypes, type);
}

interface EntryResult {
  issues: string[];
  entry?: ProviderEntry;
}

function nameIssue(raw: Record<string, unknown>): string | undefined {
  if (raw.name === undefined) return 'name is required';
  if (typeof raw.name !== 'string') return 'name must be a string';
  if (raw.name.trim() === '') return 'name must not be empty';
  return undefined;
}

function validateEntry(raw: unknown, index: number, firstIndexByName: Map<string, number>): EntryResult {
  const position = `providers[${index}]`;
  if (!isMapping(raw)) return { issues: [`${position} must be a mapping`] };
  const badName = nameIssue(raw);
  if (badName !== undefined) return { issues: [`${position}: ${badName}`] };
  const name = raw.name as string;
  const first = firstIndexByName.get(name);
  if (first !== undefined) return { issues: [`${position}: name ${JSON.stringify(name)} is already used by providers[${first}]`] };
  firstIndexByName.set(name, index);

  const label = `provider ${JSON.stringify(name)}`;
  const { type } = raw;
  if (type === undefined) return { issues: [`${label}: type is required`] };
  if (typeof type !== 'string') return { issues: [`${label}: type must be a string`] };
  if (!isKnownType(type)) {
    const hint = retiredTypeHints[type] ?? `known types: ${Object.keys(providerTypes).join(', ')}`;
    return { issues: [`${label}: unknown type ${JSON.stringify(type)} (${hint})`] };
  }

  const foreignBlocks = Object.keys(raw).filter((key) => key !== 'name' && key !== 'type' && key !== type);
  const issues = foreignBlocks.map((key) => `${label}: type is ${type} but a ${key} block is set`);
  if (raw[type] === undefined) issues.push(`${label}: type is ${type} but no ${type} block is set`);
  issues.push(...providerTypes[type].entryIssues(name).map((text) => `${label}: ${text}`));
  if (raw[type] === undefined) return { issues };

  const parsed = providerTypes[type].block.safeParse(raw[type], { reportInput: true });
  if (!parsed.success) {
    issues.push(...parsed.error.issues.flatMap((issue) => formatIssue(type, issue).map((text) => `${label}: ${text}`)));
  }
  if (issues.length > 0 || !parsed.success) return { issues };
  return { issues, entry: { name, type, [type]: parsed.data } as ProviderEntry };
}

/**
 * Validates an already-parsed document (the YAML's data). Throws ProvidersConfigError listing
 * every problem. An empty document means no providers.
 */
export function validateProvidersConfig(data: unknown, source = '<inline>'): ProvidersConfig {
  const document = withoutNulls(data ?? []);
  if (!Array.isArray(document)) {
    throw new ProvidersConfigError({ source, issues: ['must be a list of provider entries'] });
  }
  const firstIndexByName = new Map<string, number>();
  const results = document.map((raw, index) => validateEntry(raw, index, firstIndexByName));
  const issues = results.flatMap((result) => result.issues);
  if (issues.length > 0) throw new ProvidersConfigError({ source, issues });
  return results.map((result) => result.entry as ProviderEntry);
}

/** Parses YAML text. YAML errors report their position only, never the offending text. */
export function parseProvidersConfig(text: string, source = '<inline>'): ProvidersConfig {
  // prettyErrors computes linePos; its message, which quotes the source, is never used.
  const document = parseDocument(text, { prettyErrors: true });
  const [error] = document.errors;
  if (error) {
    const position = error.linePos?.[0];
    const where = position ? ` at line ${position.line}, column ${position.col}` : '';
    throw new ProvidersConfigError({ source, issues: [`YAML error ${error.code}${where}`], cause: error });
  }
  return validateProvidersConfig(document.toJS(), source);
}

/** Reads and validates the providers config file at `path`. */
export async function loadProvidersConfig(path: string): Promise<ProvidersConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ProvidersConfigError({ source: path, issues: [`cannot be read (${reason})`], cause: err });
  }
  return parseProvidersConfig(text, path);
}
