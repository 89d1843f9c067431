// The gateway username grammar as the Gateway page explains it and builds it. The gateway parses
// it in server/gateway/username.ts (the browser cannot import that): this file is the one place the
// page's wording lives, and test/unit/gateway-username-builder.test.ts feeds what buildUsername
// makes to the server's parser, so the two cannot drift apart unnoticed.

export interface GrammarEntry {
  /** the form as typed, e.g. `-set-<name>` */
  form: string;
  meaning: string;
  example: string;
}

export const grammarSummary = '<client>[-set-<set>][-label-<key>=<value>]…[-session-<id>]   or   <client>-proxy-<name>';

export const grammar: GrammarEntry[] = [
  {
    form: '<client>',
    meaning: 'Any Ready proxy, a new choice per connection (the least busy). The client part only names the crawler in the logs; it may be empty.',
    example: 'crawler',
  },
  { form: '-set-<set>', meaning: 'Only members of that ProxySet.', example: 'crawler-set-eu' },
  {
    form: '-label-<key>=<value>',
    meaning: 'Only Proxies carrying that label. Several labels must all match, and match together with -set.',
    example: 'crawler-label-pool=crawl',
  },
  {
    form: '-session-<id>',
    meaning:
      'Sticky: the same id gets the same proxy of the pool while it stays Ready. An id is 1 to 128 letters, digits, dots, underscores and dashes, starting and ending with a letter or digit.',
    example: 'crawler-set-eu-session-42',
  },
  {
    form: '-proxy-<name>',
    meaning: 'Exactly that Proxy. It takes no -set, -label or -session.',
    example: 'crawler-proxy-edge-1',
  },
];

export const grammarNotes = [
  'Parts come in any order; -set, -session and -proxy at most once each, each label key once. Keywords are lower case.',
  'A value cannot contain -set-, -label-, -session- or -proxy-: a set, Proxy, label or session named that way cannot be addressed through the gateway.',
];

/** What the page's builder asks for; empty strings mean "not given". */
export interface UsernameChoice {
  client: string;
  set?: string;
  labels?: Array<{ key: string; value: string }>;
  session?: string;
  proxy?: string;
}

/** The username for `choice`: a pinned Proxy takes no other part (the grammar refuses the mix). */
export function buildUsername(choice: UsernameChoice): string {
  const client = choice.client;
  if (choice.proxy) return `${client}-proxy-${choice.proxy}`;
  const set = choice.set ? `-set-${choice.set}` : '';
  const labels = (choice.labels ?? [])
    .filter((label) => label.key !== '')
    .map((label) => `-label-${label.key}=${label.value}`)
    .join('');
  const session = choice.session ? `-session-${choice.session}` : '';
  return `${client}${set}${labels}${session}`;
}

/** A `key=value` the builder's label field holds, or why it is not one yet. */
export function labelFromText(text: string): { label?: { key: string; value: string }; error?: string } {
  const trimmed = text.trim();
  if (trimmed === '') return {};
  const eq = trimmed.indexOf('=');
  if (eq <= 0) return { error: 'Write the label as key=value, e.g. pool=crawl.' };
  return { label: { key: trimmed.slice(0, eq), value: trimmed.slice(eq + 1) } };
}
