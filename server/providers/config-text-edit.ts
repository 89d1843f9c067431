// Edits of the providers config as text: the `yaml` document API finds the nodes (with their source
// ranges), and only the lines an edit is about change, so every comment, blank line, quoting style
// and field order elsewhere in the file stays byte for byte. Re-serialising the whole document would
// move inline comments and reformat flow maps. The result is validated by the caller.
import { isMap, isScalar, isSeq, type Node, type Pair, parseDocument, stringify, type YAMLMap, type YAMLSeq } from 'yaml';

/** A host's fields as written in `kvm2.hosts[]` (undefined: not written). */
export interface HostFields {
  name: string;
  address: string;
  user: string;
  bridge: string;
  socket?: string;
  pool?: string;
  virtType?: string;
}

const hostFieldOrder: Array<keyof HostFields> = ['name', 'address', 'user', 'bridge', 'pool', 'socket', 'virtType'];

/** A provider entry or host the edit names is not in the file. */
export class ConfigEditError extends Error {
  readonly code = 'ERR_CONFIG_EDIT';
  constructor(message: string) {
    super(message);
    this.name = 'ConfigEditError';
  }
}

type Range = [number, number, number];

const scalarText = (value: string): string => stringify(value, { lineWidth: 0 }).trimEnd();
const lineStart = (text: string, at: number): number => text.lastIndexOf('\n', at - 1) + 1;
function lineEnd(text: string, at: number): number {
  const newline = text.indexOf('\n', at);
  return newline === -1 ? text.length : newline + 1;
}
const column = (text: string, at: number): number => at - lineStart(text, at);
/** The plain value of `key` in a map item (the document API returns scalars unwrapped). */
const valueOf = (item: unknown, key: string): unknown => (isMap(item) ? (item.get(key) as unknown) : undefined);
const rangeOf = (node: Node | null | undefined): Range => {
  if (!node?.range) throw new ConfigEditError('the providers config has a node without a source position');
  return node.range;
};

function parse(text: string) {
  const document = parseDocument(text, { keepSourceTokens: true });
  if (document.errors.length > 0) throw new ConfigEditError('the providers config is not valid YAML; fix it by hand first');
  return document;
}

function entryMap(text: string, provider: string): YAMLMap {
  const root = parse(text).contents;
  const entry = isSeq(root) ? root.items.find((item) => valueOf(item, 'name') === provider) : undefined;
  if (!isMap(entry)) throw new ConfigEditError(`the providers config has no provider entry named ${JSON.stringify(provider)}`);
  return entry;
}

function hostsSeq(text: string, provider: string): YAMLSeq {
  const block = entryMap(text, provider).get('kvm2', true);
  const hosts = isMap(block) ? block.get('hosts', true) : undefined;
  if (!isSeq(hosts) || hosts.flow) throw new ConfigEditError(`provider ${JSON.stringify(provider)} has no block list kvm2.hosts to edit`);
  return hosts;
}

function hostItem(seq: YAMLSeq, name: string): { item: YAMLMap; index: number } {
  const index = seq.items.findIndex((item) => valueOf(item, 'name') === name);
  const item = seq.items[index];
  if (!isMap(item)) throw new ConfigEditError(`there is no host named ${JSON.stringify(name)}`);
  return { item, index };
}

/** Where an item's `- ` is: the last dash before its first key on that line. */
function dashOf(text: string, item: Node): number {
  const start = rangeOf(item)[0];
  const dash = text.lastIndexOf('-', start);
  if (dash < lineStart(text, start)) throw new ConfigEditError('a kvm2.hosts item is not written as `- key: value`');
  return dash;
}

/** The end of an item's lines: its value, then comment lines indented at least as deep as its keys. */
function itemBlockEnd(text: string, item: Node): number {
  const keyColumn = column(text, rangeOf(item)[0]);
  let end = lineEnd(text, rangeOf(item)[1] - 1);
  while (end < text.length) {
    const next = lineEnd(text, end);
    const line = text.slice(end, next);
    const indent = line.length - line.trimStart().length;
    if (!line.trimStart().startsWith('#') || indent < keyColumn) break;
    end = next;
  }
  return end;
}

function hostLines(host: HostFields, options: { dashColumn: number; keyColumn: number }): string {
  const fields = hostFieldOrder.filter((key) => host[key] !== undefined);
  return fields
    .map((key, index) => {
      const indent =
        index === 0 ? `${' '.repeat(options.dashColumn)}-${' '.repeat(options.keyColumn - options.dashColumn - 1)}` : ' '.repeat(options.keyColumn);
      return `${indent}${key}: ${scalarText(host[key] as string)}\n`;
    })
    .join('');
}

const splice = (text: string, options: { from: number; to: number; insert: string }): string =>
  text.slice(0, options.from) + options.insert + text.slice(options.to);

/** Appends a host to the entry's `kvm2.hosts`, indented like the hosts before it. */
export function addHostText(text: string, options: { provider: string; host: HostFields }): string {
  const seq = hostsSeq(text, options.provider);
  const last = seq.items.at(-1) as Node | undefined;
  if (!last) throw new ConfigEditError(`provider ${JSON.stringify(options.provider)} has an empty kvm2.hosts list`);
  const dashColumn = column(text, dashOf(text, last));
  const keyColumn = column(text, rangeOf(last)[0]);
  const at = itemBlockEnd(text, last);
  const before = at > 0 && text[at - 1] !== '\n' ? '\n' : '';
  return splice(text, { from: at, to: at, insert: before + hostLines(options.host, { dashColumn, keyColumn }) });
}

/** A host edit: a value sets the field, null removes it, a field left out stays as it is. */
export type HostEdit = { [K in Exclude<keyof HostFields, 'name'>]?: string | null };

/** Sets, adds or removes the fields of one host in place (its name stays); other lines stay as they are. */
export function updateHostText(text: string, options: { provider: string; host: string; fields: HostEdit }): string {
  let edited = text;
  // One field at a time, each on a fresh parse: an edit moves every position after it.
  for (const key of hostFieldOrder.filter((field) => field !== 'name')) {
    const { item } = hostItem(hostsSeq(edited, options.provider), options.host);
    const pair = item.items.find((candidate) => isScalar(candidate.key) && candidate.key.value === key) as Pair<Node, Node> | undefined;
    const wanted = options.fields[key as keyof HostEdit];
    if (wanted === undefined) continue;
    if (pair && wanted !== null) {
      const [start, valueEnd] = rangeOf(pair.value);
      if (isScalar(pair.value) && pair.value.value === wanted) continue;
      edited = splice(edited, { from: start, to: valueEnd, insert: scalarText(wanted) });
    } else if (pair) {
      const from = lineStart(edited, rangeOf(pair.key)[0]);
      if (column(edited, dashOf(edited, item)) + 2 > column(edited, rangeOf(pair.key)[0])) {
        throw new ConfigEditError(`${key} is on the line of the host's dash; remove it by hand`);
      }
      edited = splice(edited, { from, to: lineEnd(edited, rangeOf(pair.value)[1] - 1), insert: '' });
    } else if (wanted !== null) {
      const lastPair = item.items.at(-1) as Pair<Node, Node>;
      const at = lineEnd(edited, rangeOf(lastPair.value)[1] - 1);
      const keyColumn = column(edited, rangeOf(item)[0]);
      edited = splice(edited, { from: at, to: at, insert: `${' '.repeat(keyColumn)}${key}: ${scalarText(wanted)}\n` });
    }
  }
  return edited;
}

/** Removes one host's lines (its own comments with it). */
export function removeHostText(text: string, options: { provider: string; host: string }): string {
  const seq = hostsSeq(text, options.provider);
  const { item, index } = hostItem(seq, options.host);
  const next = seq.items[index + 1] as Node | undefined;
  const from = lineStart(text, dashOf(text, item));
  const to = next ? lineStart(text, dashOf(text, next)) : itemBlockEnd(text, item);
  return splice(text, { from, to, insert: '' });
}

/** A new kvm2 entry, appended after the existing ones (or as the first one). */
export function addKvm2EntryText(text: string, options: { provider: string; sshKeyFile: string; knownHostsFile: string; host: HostFields }): string {
  const root = parse(text).contents;
  const entry = [
    `- name: ${scalarText(options.provider)}`,
    '  type: kvm2',
    '  kvm2:',
    `    sshKeyFile: ${scalarText(options.sshKeyFile)}`,
    `    knownHostsFile: ${scalarText(options.knownHostsFile)}`,
    '    machineTypes:',
    '      small: {vcpus: 1, memoryMiB: 1024}',
    '    hosts:',
    hostLines(options.host, { dashColumn: 6, keyColumn: 8 }).trimEnd(),
    '',
  ].join('\n');
  if (root === null || (isSeq(root) && root.flow && root.items.length === 0)) {
    const [from, to] = root ? rangeOf(root) : [text.length, text.length];
    const before = text.slice(0, from);
    return `${before}${before === '' || before.endsWith('\n') ? '' : '\n'}${entry}${text.slice(to).replace(/^\s*\n?/, '')}`;
  }
  if (!isSeq(root) || root.flow) throw new ConfigEditError('the providers config is not a block list of entries; add the entry by hand');
  const ending = text.endsWith('\n') ? '' : '\n';
  const dashColumn = root.items[0] ? column(text, dashOf(text, root.items[0] as Node)) : 0;
  const indented = entry
    .split('\n')
    .map((line) => (line === '' ? line : ' '.repeat(dashColumn) + line))
    .join('\n');
  return `${text}${ending}${indented}`;
}
