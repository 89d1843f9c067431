import { describe, expect, it } from 'vitest';
import { checkHostKey, knownKeyTypes, parseKnownHosts, type SshEndpoint } from '@/server/ssh';
import { generateKey, hashedHostName } from './ssh-harness';

const presented = generateKey();
const other = generateKey();
const ecdsa = generateKey('ecdsa');

const keyBlob = (key: { publicFields: string }) => Buffer.from(key.publicFields.split(' ')[1]!, 'base64');

type Verdict = 'ok' | 'unknown' | 'changed' | 'revoked';

interface Case {
  name: string;
  lines: string[];
  endpoint: SshEndpoint;
  verdict: Verdict;
}

const host = (name: string, port = 22): SshEndpoint => ({ host: name, port });
const P = presented.publicFields;
const O = other.publicFields;
const E = ecdsa.publicFields;

const cases: Case[] = [
  { name: 'plain host on port 22', lines: [`beelink ${P}`], endpoint: host('beelink'), verdict: 'ok' },
  { name: 'plain IP on port 22', lines: [`198.18.1.2 ${P}`], endpoint: host('198.18.1.2'), verdict: 'ok' },
  { name: '[host]:port for a non-22 port', lines: [`[198.18.2.2]:2222 ${P}`], endpoint: host('198.18.2.2', 2222), verdict: 'ok' },
  { name: 'a bare host does not cover a non-22 port', lines: [`198.18.2.2 ${P}`], endpoint: host('198.18.2.2', 2222), verdict: 'unknown' },
  { name: 'port 22 uses the bare host, not [host]:22', lines: [`[beelink]:22 ${P}`], endpoint: host('beelink'), verdict: 'unknown' },
  { name: '[host]:port does not cover another port', lines: [`[beelink]:2222 ${P}`], endpoint: host('beelink', 2200), verdict: 'unknown' },
  { name: 'hashed bare host', lines: [`${hashedHostName('beelink')} ${P}`], endpoint: host('beelink'), verdict: 'ok' },
  { name: 'hashed [host]:port', lines: [`${hashedHostName('[198.18.2.2]:2222')} ${P}`], endpoint: host('198.18.2.2', 2222), verdict: 'ok' },
  { name: 'hashed entry of another host', lines: [`${hashedHostName('elsewhere')} ${P}`], endpoint: host('beelink'), verdict: 'unknown' },
  { name: 'comma-separated names and addresses', lines: [`alpha,beelink,10.0.0.1 ${P}`], endpoint: host('10.0.0.1'), verdict: 'ok' },
  { name: 'wildcard *', lines: [`*.lab.example ${P}`], endpoint: host('h1.lab.example'), verdict: 'ok' },
  { name: 'wildcard ? matches exactly one character', lines: [`h?.lab.example ${P}`], endpoint: host('h12.lab.example'), verdict: 'unknown' },
  { name: 'wildcard with a port', lines: [`[*.lab.example]:2222 ${P}`], endpoint: host('h1.lab.example', 2222), verdict: 'ok' },
  { name: 'a regex metacharacter in a name is literal', lines: [`h1.lab.example ${P}`], endpoint: host('h1xlab.example'), verdict: 'unknown' },
  { name: '! negation vetoes a wildcard', lines: [`*.lab.example,!bad.lab.example ${P}`], endpoint: host('bad.lab.example'), verdict: 'unknown' },
  { name: '! negation leaves other names matched', lines: [`*.lab.example,!bad.lab.example ${P}`], endpoint: host('good.lab.example'), verdict: 'ok' },
  { name: 'host names compare case-insensitively', lines: [`BeeLink.Example ${P}`], endpoint: host('beelink.EXAMPLE'), verdict: 'ok' },
  { name: 'a different key of the same type is a changed key', lines: [`beelink ${O}`], endpoint: host('beelink'), verdict: 'changed' },
  {
    name: 'a changed key is reported even when a hashed line holds it',
    lines: [`${hashedHostName('beelink')} ${O}`],
    endpoint: host('beelink'),
    verdict: 'changed',
  },
  { name: 'keys of another type only: unknown, not changed', lines: [`beelink ${E}`], endpoint: host('beelink'), verdict: 'unknown' },
  { name: 'one accepting line among others is enough', lines: [`beelink ${O}`, `beelink ${E}`, `beelink ${P}`], endpoint: host('beelink'), verdict: 'ok' },
  { name: 'no lines: unknown host', lines: [], endpoint: host('beelink'), verdict: 'unknown' },
  { name: '@revoked beats an accepting line', lines: [`beelink ${P}`, `@revoked beelink ${P}`], endpoint: host('beelink'), verdict: 'revoked' },
  { name: '@revoked * revokes the key for every host', lines: [`@revoked * ${P}`, `beelink ${P}`], endpoint: host('beelink'), verdict: 'revoked' },
  { name: '@revoked of another key does not matter', lines: [`@revoked beelink ${O}`, `beelink ${P}`], endpoint: host('beelink'), verdict: 'ok' },
  { name: '@revoked for another host does not matter', lines: [`@revoked elsewhere ${P}`, `beelink ${P}`], endpoint: host('beelink'), verdict: 'ok' },
  { name: '@revoked alone does not accept', lines: [`@revoked beelink ${O}`], endpoint: host('beelink'), verdict: 'unknown' },
  { name: '@cert-authority lines are ignored', lines: [`@cert-authority beelink ${P}`], endpoint: host('beelink'), verdict: 'unknown' },
  {
    name: 'comments, blank lines and trailing comments',
    lines: ['# hosts of the lab', '', '   ', `  beelink ${P} root@beelink  `, '# end'],
    endpoint: host('beelink'),
    verdict: 'ok',
  },
  {
    name: 'malformed lines are skipped',
    lines: [
      'beelink',
      `beelink ssh-ed25519 !!!not-base64!!!`,
      `beelink ssh-rsa ${P.split(' ')[1]}`,
      `@bogus beelink ${P}`,
      `|1|onlysalt ${P}`,
      `|1|c2FsdA==|dG9vc2hvcnQ= ${P}`,
      `beelink ${P}`,
    ],
    endpoint: host('beelink'),
    verdict: 'ok',
  },
];

describe('known_hosts host-key verification', () => {
  it.each(cases)('$name → $verdict', ({ lines, endpoint, verdict }) => {
    const knownHosts = parseKnownHosts(lines.join('\n'));
    const problem = checkHostKey(knownHosts, { endpoint, key: keyBlob(presented), knownHostsFile: '/secrets/known_hosts' });
    expect(problem?.reason ?? 'ok').toBe(verdict);
  });

  it('counts malformed and @cert-authority lines without keeping them', () => {
    const knownHosts = parseKnownHosts([`beelink ${P}`, 'garbage', `@cert-authority *.lab ${P}`, `x ssh-ed25519 AAAA`].join('\n'));
    expect(knownHosts.entries).toHaveLength(1);
    expect(knownHosts.malformedLines).toEqual([2, 4]);
    expect(knownHosts.ignoredCertAuthorityLines).toEqual([3]);
  });

  it('names the host and the line, keeps the file path for the log (not the message), and never quotes the file', () => {
    const lines = [`# secret comment`, `beelink ${O}`];
    const problem = checkHostKey(parseKnownHosts(lines.join('\n')), {
      endpoint: host('beelink'),
      key: keyBlob(presented),
      knownHostsFile: '/secrets/known_hosts',
    });
    expect(problem).toMatchObject({ code: 'SSH_HOST_KEY_CHANGED', permanent: true, knownHostsName: 'beelink', stage: 'ssh' });
    expect(problem?.message).not.toContain('/secrets');
    expect(problem?.message).toContain('line 2 of the known_hosts file');
    expect(problem?.file).toBe('/secrets/known_hosts');
    expect(problem?.message).not.toContain(O.split(' ')[1]!.slice(0, 20));
    expect(problem?.message).not.toContain('secret comment');
    expect(problem?.fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
  });

  // Written by OpenSSH's `ssh-keygen -H` (the key is a dummy 32-byte ed25519 blob), so our HMAC
  // is checked against OpenSSH's own rather than against our test helper.
  it.each([
    ['|1|qGlVdmLETo8VAtMZB8aaMPntyzI=|hBuQJO8s4uN7JMeOhX8yX57Oks0=', host('198.18.2.2', 2222)],
    ['|1|8gQywv716Dp0GjlcHaSXNBEtY/0=|vRSjiVWsje1X8eWTsxBuHhLsjZE=', host('beelink.tail8c69c.ts.net')],
  ])('matches a name hashed by ssh-keygen -H: %s', (hashed, endpoint) => {
    const dummy = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGVzdGVzdGVzdGVzdGVzdGVzdGVzdGVzdGVzdGVzdGVz';
    const knownHosts = parseKnownHosts(`${hashed} ${dummy}\n`);
    expect(knownKeyTypes(knownHosts, endpoint)).toEqual(['ssh-ed25519']);
    expect(knownKeyTypes(knownHosts, host('198.18.2.2'))).toEqual([]);
  });

  it('lists the key types known for a host so the handshake can prefer them', () => {
    const knownHosts = parseKnownHosts([`beelink ${E}`, `@revoked beelink ${P}`, `other ${O}`].join('\n'));
    expect(knownKeyTypes(knownHosts, host('beelink'))).toEqual(['ecdsa-sha2-nistp256']);
  });
});
