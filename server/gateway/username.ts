// The gateway username: which proxies a crawler's connection may use, read from the username of
// its Proxy-Authorization (the password is the gateway token). The grammar:
//
//   <client>[-set-<set>][-label-<key>=<value>]...[-session-<id>]     or     <client>-proxy-<name>
//
// - <client> is everything before the first part: any text (empty too) up to 128 characters
//   without control characters. It only names the crawler in logs; it selects nothing.
// - A part starts where `-set-`, `-label-`, `-session-` or `-proxy-` appears (lower case only; an
//   upper-case `-SET-` is just text), or where the username ends with `-set`, `-label`,
//   `-session` or `-proxy` (so a forgotten value is an error rather than a client name; a client
//   name cannot end that way either). Its value runs to the next part or the end. The search for
//   the next part starts after the previous keyword's trailing dash, so a value may start with a
//   keyword (`-set-proxy-pool` is the set `proxy-pool`), but a value cannot contain `-set-`,
//   `-label-`, `-session-` or `-proxy-`: a set, Proxy, label or session named that way cannot be
//   addressed through the gateway.
// - Parts come in any order; each of -set, -session and -proxy at most once, each label key once.
// - `-set-<set>`: only members of that ProxySet (its name rule: a DNS-1123 label of at most 57
//   characters). The same pool as the discovery API's `set=` (the member label `proxyset=<set>`).
// - `-label-<key>=<value>`: only Proxies carrying that label, with the Proxy label rules (key
//   `[prefix/]name`, value up to 63 letters, digits, `-`, `_`, `.`, or empty). Several are ANDed,
//   and AND with -set.
// - `-session-<id>`: sticky: the same id gets the same proxy of the (narrowed) pool while it is
//   Ready. An id is 1 to 128 letters, digits, dots, underscores and dashes, starting and ending
//   with a letter or digit (a UUID fits); case-sensitive.
// - `-proxy-<name>`: exactly that Proxy (the Proxy name rule: a DNS-1123 label). It takes no
//   -set, -label or -session: that is an error, not silently ignored. Refusing the combination now
//   leaves room to define it later without changing what an accepted username means.
// Every error message is printable ASCII (what the client sent is quoted with escapes), since the
// gateway sends it back in an X-Gateway-Error header.
import type { z } from 'zod';
import { maxSetNameLength } from '@/lib/api/proxyset-spec';
import { labelsSchema, proxyNameSchema } from '@/lib/proxy-spec';

/** What a gateway username asks for. */
export interface GatewaySelector {
  client: string;
  set?: string;
  /** every one must match (and the set's, when given) */
  labels: Record<string, string>;
  session?: string;
  proxy?: string;
}

export type UsernamePart = 'username' | 'client' | '-set' | '-label' | '-session' | '-proxy';

/** A username the grammar does not accept; `part` names the offending part. */
export class GatewayUsernameError extends Error {
  readonly code = 'ERR_GATEWAY_USERNAME';
  constructor(
    readonly part: UsernamePart,
    detail: string,
  ) {
    super(`username: ${part === 'username' || part === 'client' ? '' : `${part} `}${detail}`);
    this.name = 'GatewayUsernameError';
  }
}

export const maxUsernameLength = 1024;
export const maxClientLength = 128;
export const maxSessionLength = 128;

const partMarker = /-(set|label|session|proxy)(?:-|$)/g;
const sessionCharacters = /^[A-Za-z0-9._-]*$/;
const sessionEnds = /^[A-Za-z0-9](?:.*[A-Za-z0-9])?$/;
const controlCharacter = /[\u0000-\u001f\u007f]/;
const setNameSchema = proxyNameSchema.max(maxSetNameLength, { error: `must be at most ${maxSetNameLength} characters` });

/** `text` in double quotes, everything outside printable ASCII escaped, at most ~64 characters. */
export function quote(text: string): string {
  const shown = text.length > 64 ? `${text.slice(0, 61)}...` : text;
  const escaped = JSON.stringify(shown).replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return escaped;
}

// zod reports a bad record key as `invalid_key` with the key's own issues inside: show those.
function firstMessage(issues: readonly z.core.$ZodIssue[]): string | undefined {
  const issue = issues[0];
  if (issue?.code === 'invalid_key') return firstMessage(issue.issues) ?? issue.message;
  return issue?.message;
}

function checkName(part: '-set' | '-proxy', value: string): string {
  if (value === '') throw new GatewayUsernameError(part, 'needs a name');
  const checked = (part === '-set' ? setNameSchema : proxyNameSchema).safeParse(value);
  if (!checked.success) throw new GatewayUsernameError(part, `${quote(value)} ${firstMessage(checked.error.issues) ?? 'is not a name'}`);
  return value;
}

function checkSession(value: string): string {
  if (value === '') throw new GatewayUsernameError('-session', 'needs an id');
  const problem =
    value.length > maxSessionLength
      ? `must be at most ${maxSessionLength} characters`
      : !sessionCharacters.test(value) || !sessionEnds.test(value)
        ? 'may contain only letters, digits, dots, underscores and dashes, starting and ending with a letter or digit'
        : undefined;
  if (problem) throw new GatewayUsernameError('-session', `${quote(value)} ${problem}`);
  return value;
}

function checkLabel(value: string): [string, string] {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new GatewayUsernameError('-label', value === '' ? 'needs key=value' : `needs key=value, got ${quote(value)}`);
  const key = value.slice(0, eq);
  const labelValue = value.slice(eq + 1);
  // fromEntries keeps `__proto__` as data, so the schema can refuse it by name
  const checked = labelsSchema.safeParse(Object.fromEntries([[key, labelValue]]));
  if (!checked.success) throw new GatewayUsernameError('-label', `${quote(value)} ${firstMessage(checked.error.issues) ?? 'is not a label'}`);
  return [key, labelValue];
}

function checkClient(client: string): string {
  if (client.length > maxClientLength) throw new GatewayUsernameError('client', `the client name must be at most ${maxClientLength} characters`);
  if (controlCharacter.test(client)) throw new GatewayUsernameError('client', 'the client name must not contain control characters');
  return client;
}

/** The parts of `username` in order: [keyword, value]. */
function splitParts(username: string): { client: string; parts: Array<[string, string]> } {
  const marker = new RegExp(partMarker);
  const first = marker.exec(username);
  if (!first) return { client: username, parts: [] };
  const parts: Array<[string, string]> = [];
  for (let match: RegExpExecArray | null = first; match;) {
    const valueStart = match.index + match[0].length;
    marker.lastIndex = valueStart;
    const next = marker.exec(username);
    parts.push([match[1] as string, username.slice(valueStart, next ? next.index : username.length)]);
    match = next;
  }
  return { client: username.slice(0, first.index), parts };
}

/** The selector a gateway username asks for; throws GatewayUsernameError naming the bad part. */
export function parseUsername(username: string): GatewaySelector {
  if (username.length > maxUsernameLength) throw new GatewayUsernameError('username', `must be at most ${maxUsernameLength} characters`);
  const { client, parts } = splitParts(username);
  const selector: GatewaySelector = { client: checkClient(client), labels: {} };
  const once = (part: '-set' | '-session' | '-proxy', present: unknown) => {
    if (present !== undefined) throw new GatewayUsernameError(part, 'given twice');
  };
  for (const [keyword, value] of parts) {
    if (keyword === 'set') {
      once('-set', selector.set);
      selector.set = checkName('-set', value);
    } else if (keyword === 'proxy') {
      once('-proxy', selector.proxy);
      selector.proxy = checkName('-proxy', value);
    } else if (keyword === 'session') {
      once('-session', selector.session);
      selector.session = checkSession(value);
    } else {
      const [key, labelValue] = checkLabel(value);
      if (Object.hasOwn(selector.labels, key)) throw new GatewayUsernameError('-label', `${key} given twice`);
      selector.labels[key] = labelValue;
    }
  }
  if (selector.proxy !== undefined) {
    const extra = [selector.set !== undefined && '-set', Object.keys(selector.labels).length > 0 && '-label', selector.session !== undefined && '-session'];
    const named = extra.filter((part): part is string => part !== false);
    if (named.length > 0) throw new GatewayUsernameError('-proxy', `pins one proxy and takes no -set, -label or -session: leave out ${named.join(', ')}`);
  }
  return selector;
}
