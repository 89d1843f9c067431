// Turns zod issues into the messages the providers config promises: each names the block and the
// path, e.g. `kvm2.hosts[0]: bridge is required`. Messages never quote free-text values (vendorData,
// URLs) because those may carry cloud-init content or credentials; only names are quoted.
import type { z } from 'zod';

type PathSegment = PropertyKey;

const safeKey = /^[A-Za-z0-9._-]+$/;

/** `kvm2` + ['hosts', 0] -> `kvm2.hosts[0]`; odd keys are quoted: `kvm2.images["a b"]`. */
export function formatLocation(root: string, path: readonly PathSegment[]): string {
  return path.reduce<string>((text, segment) => {
    if (typeof segment === 'number') return `${text}[${segment}]`;
    const key = String(segment);
    return safeKey.test(key) ? `${text}.${key}` : `${text}[${JSON.stringify(key)}]`;
  }, root);
}

// What a value of an expected zod type is called in a message.
const expectedNoun: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'a mapping',
  record: 'a mapping',
  map: 'a mapping',
  array: 'a list',
};

function nounFor(expected: string): string {
  return expectedNoun[expected] ?? expected;
}

function quoteList(values: readonly unknown[]): string {
  const words = values.map((value) => String(value));
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

type Issue = z.core.$ZodIssue & { input?: unknown };

// The problem an issue describes, without its subject: "is required", "must be a string", ...
const fragmentByCode: Partial<Record<Issue['code'], (issue: Issue) => string>> = {
  invalid_type: (issue) => (issue.input === undefined ? 'is required' : `must be ${nounFor((issue as z.core.$ZodIssueInvalidType).expected)}`),
  invalid_value: (issue) => `must be ${quoteList((issue as z.core.$ZodIssueInvalidValue).values)}`,
  too_small: (issue) => {
    const small = issue as z.core.$ZodIssueTooSmall;
    if (small.origin === 'array' || small.origin === 'set') return 'needs at least one entry';
    if (small.origin === 'string') return 'must not be empty';
    const minimum = Number(small.minimum);
    return small.inclusive ? `must be at least ${minimum}` : `must be greater than ${minimum}`;
  },
  too_big: (issue) => {
    const big = issue as z.core.$ZodIssueTooBig;
    return big.inclusive ? `must be at most ${Number(big.maximum)}` : `must be less than ${Number(big.maximum)}`;
  },
};

/**
 * One message per problem. Zod issues with our own text (formats, refinements) carry only the
 * fragment after the subject; the subject is the last path segment when it is a field name.
 */
export function formatIssue(root: string, issue: Issue): string[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => `${formatLocation(root, issue.path)}: unknown field ${JSON.stringify(key)}`);
  }
  const fragment = fragmentByCode[issue.code]?.(issue) ?? issue.message;
  const last = issue.path[issue.path.length - 1];
  if (last === undefined || typeof last === 'number') return [`${formatLocation(root, issue.path)} ${fragment}`];
  return [`${formatLocation(root, issue.path.slice(0, -1))}: ${String(last)} ${fragment}`];
}

/** Drops mapping keys whose value is null, so `bridge:` with nothing after it reads as missing. */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== null)
    .map(([key, item]) => [key, withoutNulls(item)] as const);
  return Object.fromEntries(entries);
}
