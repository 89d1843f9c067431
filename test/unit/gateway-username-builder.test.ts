// The Gateway page's username builder and its grammar text agree with the gateway's own parser
// (server/gateway/username.ts): what the builder makes selects what was chosen, and every example
// the page shows is accepted and means what its row says.
import { describe, expect, it } from 'vitest';
import { buildUsername, grammar } from '@/components/gateway/username-grammar';
import { parseUsername } from '@/server/gateway/username';

describe('the username builder', () => {
  it.each([
    { choice: { client: 'crawler' }, username: 'crawler', selector: { client: 'crawler', labels: {} } },
    { choice: { client: '' }, username: '', selector: { client: '', labels: {} } },
    { choice: { client: 'crawler', set: 'eu' }, username: 'crawler-set-eu', selector: { client: 'crawler', set: 'eu', labels: {} } },
    {
      choice: {
        client: 'crawler',
        set: 'eu',
        labels: [
          { key: 'example.com/team', value: 'a.b' },
          { key: 'tier', value: '' },
        ],
        session: 'user-42',
      },
      username: 'crawler-set-eu-label-example.com/team=a.b-label-tier=-session-user-42',
      selector: { client: 'crawler', set: 'eu', labels: { 'example.com/team': 'a.b', tier: '' }, session: 'user-42' },
    },
    {
      choice: { client: 'my-crawler', session: '3f2b0c1e-8a7d-4c55-9d0e-1a2b3c4d5e6f' },
      username: 'my-crawler-session-3f2b0c1e-8a7d-4c55-9d0e-1a2b3c4d5e6f',
      selector: { client: 'my-crawler', labels: {}, session: '3f2b0c1e-8a7d-4c55-9d0e-1a2b3c4d5e6f' },
    },
    // A label row left without a key is not part of the username yet.
    { choice: { client: 'c', labels: [{ key: '', value: 'x' }] }, username: 'c', selector: { client: 'c', labels: {} } },
  ])('$username', ({ choice, username, selector }) => {
    expect(buildUsername(choice)).toBe(username);
    expect(parseUsername(username)).toEqual(selector);
  });

  it('pins a Proxy alone, leaving out the set, labels and session the grammar refuses with it', () => {
    const username = buildUsername({ client: 'crawler', set: 'eu', labels: [{ key: 'pool', value: 'a' }], session: 's1', proxy: 'edge-1' });
    expect(username).toBe('crawler-proxy-edge-1');
    expect(parseUsername(username)).toEqual({ client: 'crawler', labels: {}, proxy: 'edge-1' });
  });
});

describe('the grammar the page shows', () => {
  const selectorOf = (form: string) => {
    const entry = grammar.find((row) => row.form === form);
    if (!entry) throw new Error(`no row for ${form}`);
    return parseUsername(entry.example);
  };

  it('has one row per form the gateway reads', () => {
    expect(grammar.map((row) => row.form)).toEqual(['<client>', '-set-<set>', '-label-<key>=<value>', '-session-<id>', '-proxy-<name>']);
  });

  it('gives examples the gateway accepts, each selecting by its own form', () => {
    expect(selectorOf('<client>')).toEqual({ client: 'crawler', labels: {} });
    expect(selectorOf('-set-<set>')).toMatchObject({ set: 'eu' });
    expect(selectorOf('-label-<key>=<value>')).toMatchObject({ labels: { pool: 'crawl' } });
    expect(selectorOf('-session-<id>')).toMatchObject({ session: '42' });
    expect(selectorOf('-proxy-<name>')).toMatchObject({ proxy: 'edge-1' });
  });
});
