// The password the page's URL carries for the token picker's state: the whole token just created
// (shown this once), a listed token's prefix with a placeholder for its secret, or a placeholder
// for a token not chosen yet. Pure.
import { placeholderToken } from './gateway-url';

export const noTokenPlaceholder = 'GATEWAY_TOKEN';

export type TokenChoice =
  { kind: 'complete'; name: string; password: string } | { kind: 'placeholder'; name: string; password: string } | { kind: 'none'; password: string };

export function tokenChoice(options: {
  tokens: Array<{ id: string; name: string; prefix: string }>;
  /** the picker's choice; the first token when none was made */
  selectedId: string | undefined;
  /** the token created on this page, with its whole secret */
  created: { id: string; name: string; token: string } | undefined;
}): TokenChoice {
  const id = options.selectedId ?? options.created?.id ?? options.tokens[0]?.id;
  if (options.created && options.created.id === id) return { kind: 'complete', name: options.created.name, password: options.created.token };
  const listed = options.tokens.find((token) => token.id === id);
  if (listed) return { kind: 'placeholder', name: listed.name, password: placeholderToken(listed.prefix) };
  return { kind: 'none', password: noTokenPlaceholder };
}
