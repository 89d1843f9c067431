import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadProvidersConfig, parseProvidersConfig, ProvidersConfigError, validateProvidersConfig } from '@/server/providers/config';
import { providersConfigSample } from '@/components/hosts/prerequisites';

// A valid config shaped like the spec's sample; each case breaks exactly one thing.
type Entry = Record<string, unknown> & { kvm2: Record<string, unknown> & { hosts: Record<string, unknown>[] } };
function sample(): Entry[] {
  return [
    {
      name: 'kvm2-home',
      type: 'kvm2',
      kvm2: {
        sshKeyFile: '/etc/kvm2-proxies/id_ed25519',
        knownHostsFile: '/etc/kvm2-proxies/known_hosts',
        images: { 'debian-13': { url: 'https://cloud.debian.org/images/debian-13-generic-amd64.qcow2' } },
        machineTypes: { small: { vcpus: 1, memoryMiB: 1024 } },
        hosts: [{ name: 'beelink', address: 'beelink.example.net:22', user: 'admin', bridge: 'br0' }],
      },
    },
  ];
}

const at = (config: Entry[]) => config[0] as Entry;
const block = (config: Entry[]) => at(config).kvm2;
const firstHost = (config: Entry[]) => block(config).hosts[0] as Record<string, unknown>;
const image = (config: Entry[]) => (block(config).images as Record<string, Record<string, unknown>>)['debian-13'] as Record<string, unknown>;
const small = (config: Entry[]) => (block(config).machineTypes as Record<string, Record<string, unknown>>).small as Record<string, unknown>;
const home = 'provider "kvm2-home": ';
const fileSafe = 'may contain only letters, digits, dots, dashes and underscores';
const dotName = 'is not a usable name: . and .. name directories';

interface Case {
  what: string;
  change: (config: Entry[]) => unknown;
  message: string | string[];
}

const invalid: Case[] = [
  { what: 'host without bridge', change: (c) => delete firstHost(c).bridge, message: `${home}kvm2.hosts[0]: bridge is required` },
  { what: 'host without name', change: (c) => delete firstHost(c).name, message: `${home}kvm2.hosts[0]: name is required` },
  { what: 'host without address', change: (c) => delete firstHost(c).address, message: `${home}kvm2.hosts[0]: address is required` },
  { what: 'host without user', change: (c) => delete firstHost(c).user, message: `${home}kvm2.hosts[0]: user is required` },
  { what: 'host with empty user', change: (c) => (firstHost(c).user = ''), message: `${home}kvm2.hosts[0]: user must not be empty` },
  { what: 'host name with a space', change: (c) => (firstHost(c).name = 'bee link'), message: `${home}kvm2.hosts[0]: name "bee link" ${fileSafe}` },
  { what: 'host name with a slash', change: (c) => (firstHost(c).name = 'a/b'), message: `${home}kvm2.hosts[0]: name "a/b" ${fileSafe}` },
  { what: 'host name ..', change: (c) => (firstHost(c).name = '..'), message: `${home}kvm2.hosts[0]: name ".." ${dotName}` },
  { what: 'host name .', change: (c) => (firstHost(c).name = '.'), message: `${home}kvm2.hosts[0]: name "." ${dotName}` },
  {
    what: 'host named auto, which placement.zone reads as "choose for me"',
    change: (c) => (firstHost(c).name = 'auto'),
    message: `${home}kvm2.hosts[0]: name "auto" is reserved: placement.zone "auto" asks the control plane to choose a host, so a host of that name could never be chosen by name; pick another name`,
  },
  {
    what: 'duplicate host names',
    change: (c) => block(c).hosts.push({ name: 'beelink', address: 'other:22', user: 'admin', bridge: 'br0' }),
    message: `${home}kvm2.hosts[1]: name "beelink" is already used by kvm2.hosts[0]`,
  },
  {
    what: 'address with a bad port',
    change: (c) => (firstHost(c).address = 'beelink:99999'),
    message: `${home}kvm2.hosts[0]: address "beelink:99999" is not host:port`,
  },
  { what: 'address that is a number', change: (c) => (firstHost(c).address = 22), message: `${home}kvm2.hosts[0]: address must be a string` },
  { what: 'relative socket path', change: (c) => (firstHost(c).socket = 'libvirt-sock'), message: `${home}kvm2.hosts[0]: socket must be an absolute path` },
  { what: 'empty pool', change: (c) => (firstHost(c).pool = ''), message: `${home}kvm2.hosts[0]: pool must not be empty` },
  { what: 'unknown virtType', change: (c) => (firstHost(c).virtType = 'xen'), message: `${home}kvm2.hosts[0]: virtType must be kvm or qemu` },
  { what: 'misspelt host field', change: (c) => (firstHost(c).brige = 'br1'), message: `${home}kvm2.hosts[0]: unknown field "brige"` },
  { what: 'unknown placementPolicy', change: (c) => (block(c).placementPolicy = 'random'), message: `${home}kvm2: placementPolicy must be spread or pack` },
  { what: 'empty hosts list', change: (c) => (block(c).hosts = []), message: `${home}kvm2: hosts needs at least one entry` },
  { what: 'no hosts', change: (c) => delete (block(c) as Record<string, unknown>).hosts, message: `${home}kvm2: hosts is required` },
  { what: 'hosts as a mapping', change: (c) => ((block(c) as Record<string, unknown>).hosts = { beelink: {} }), message: `${home}kvm2: hosts must be a list` },
  {
    what: 'host entry that is a string',
    change: (c) => ((block(c) as Record<string, unknown>).hosts = ['beelink']),
    message: `${home}kvm2.hosts[0] must be a mapping`,
  },
  { what: 'no sshKeyFile', change: (c) => delete block(c).sshKeyFile, message: `${home}kvm2: sshKeyFile is required` },
  {
    what: 'no knownHostsFile without insecureIgnoreHostKey',
    change: (c) => delete block(c).knownHostsFile,
    message: `${home}kvm2: knownHostsFile is required unless insecureIgnoreHostKey is true`,
  },
  {
    what: 'no knownHostsFile with insecureIgnoreHostKey false',
    change: (c) => {
      delete block(c).knownHostsFile;
      block(c).insecureIgnoreHostKey = false;
    },
    message: `${home}kvm2: knownHostsFile is required unless insecureIgnoreHostKey is true`,
  },
  {
    what: 'insecureIgnoreHostKey as a word',
    change: (c) => (block(c).insecureIgnoreHostKey = 'yes'),
    message: `${home}kvm2: insecureIgnoreHostKey must be true or false`,
  },
  { what: 'diskSizeGb zero', change: (c) => (block(c).diskSizeGb = 0), message: `${home}kvm2: diskSizeGb must be greater than 0` },
  { what: 'diskSizeGb negative', change: (c) => (block(c).diskSizeGb = -5), message: `${home}kvm2: diskSizeGb must be greater than 0` },
  { what: 'diskSizeGb fractional', change: (c) => (block(c).diskSizeGb = 2.5), message: `${home}kvm2: diskSizeGb must be a whole number` },
  { what: 'diskSizeGb huge', change: (c) => (block(c).diskSizeGb = 2 ** 40), message: `${home}kvm2: diskSizeGb must be at most 65536 (GiB, that is 64 TiB)` },
  { what: 'diskSizeGb as text', change: (c) => (block(c).diskSizeGb = '10'), message: `${home}kvm2: diskSizeGb must be a number` },
  { what: 'installGuestAgent as text', change: (c) => (block(c).installGuestAgent = 'no'), message: `${home}kvm2: installGuestAgent must be true or false` },
  { what: 'vendorData as a number', change: (c) => (block(c).vendorData = 42), message: `${home}kvm2: vendorData must be a string` },
  { what: 'misspelt block field', change: (c) => (block(c).diskSizeGB = 20), message: `${home}kvm2: unknown field "diskSizeGB"` },
  {
    what: 'image key with a space',
    change: (c) => ((block(c).images as Record<string, unknown>)['debian 13'] = { url: 'https://example.org/d.qcow2' }),
    message: `${home}kvm2: images key "debian 13" ${fileSafe}`,
  },
  {
    what: 'image key ..',
    change: (c) => ((block(c).images as Record<string, unknown>)['..'] = { url: 'https://example.org/d.qcow2' }),
    message: `${home}kvm2: images key ".." ${dotName}`,
  },
  {
    what: 'image key .',
    change: (c) => ((block(c).images as Record<string, unknown>)['.'] = { url: 'https://example.org/d.qcow2' }),
    message: `${home}kvm2: images key "." ${dotName}`,
  },
  { what: 'image without url', change: (c) => delete image(c).url, message: `${home}kvm2.images.debian-13: url is required` },
  {
    what: 'image url not http(s)',
    change: (c) => (image(c).url = 'ftp://mirror.example.org/d.qcow2'),
    message: `${home}kvm2.images.debian-13: url must be an http(s) URL`,
  },
  { what: 'image url not a URL', change: (c) => (image(c).url = 'debian.qcow2'), message: `${home}kvm2.images.debian-13: url must be an http(s) URL` },
  { what: 'sha256 too short', change: (c) => (image(c).sha256 = 'abc123'), message: `${home}kvm2.images.debian-13: sha256 must be 64 hex characters` },
  { what: 'sha256 not hex', change: (c) => (image(c).sha256 = 'z'.repeat(64)), message: `${home}kvm2.images.debian-13: sha256 must be 64 hex characters` },
  { what: 'unknown image format', change: (c) => (image(c).format = 'vmdk'), message: `${home}kvm2.images.debian-13: format must be qcow2 or raw` },
  { what: 'unknown firmware', change: (c) => (image(c).firmware = 'coreboot'), message: `${home}kvm2.images.debian-13: firmware must be uefi or bios` },
  { what: 'misspelt image field', change: (c) => (image(c).checksum = 'x'), message: `${home}kvm2.images.debian-13: unknown field "checksum"` },
  { what: 'images as a list', change: (c) => (block(c).images = ['debian-13']), message: `${home}kvm2: images must be a mapping` },
  { what: 'no machine types', change: (c) => (block(c).machineTypes = {}), message: `${home}kvm2: machineTypes needs at least one entry` },
  { what: 'machineTypes missing', change: (c) => delete block(c).machineTypes, message: `${home}kvm2: machineTypes is required` },
  { what: 'zero vcpus', change: (c) => (small(c).vcpus = 0), message: `${home}kvm2.machineTypes.small: vcpus must be greater than 0` },
  { what: 'negative memory', change: (c) => (small(c).memoryMiB = -1024), message: `${home}kvm2.machineTypes.small: memoryMiB must be greater than 0` },
  { what: 'memory missing', change: (c) => delete small(c).memoryMiB, message: `${home}kvm2.machineTypes.small: memoryMiB is required` },
  { what: 'fractional vcpus', change: (c) => (small(c).vcpus = 1.5), message: `${home}kvm2.machineTypes.small: vcpus must be a whole number` },
  { what: 'kvm2 block missing', change: (c) => delete (at(c) as Record<string, unknown>).kvm2, message: `${home}type is kvm2 but no kvm2 block is set` },
  { what: 'kvm2 block not a mapping', change: (c) => ((at(c) as Record<string, unknown>).kvm2 = 'yes'), message: `${home}kvm2 must be a mapping` },
  {
    what: 'a kvm block next to type kvm2',
    change: (c) => ((at(c) as Record<string, unknown>).kvm = { sshKeyFile: '/x' }),
    message: `${home}type is kvm2 but a kvm block is set`,
  },
  {
    what: 'type kvm2 written with a kvm block only',
    change: (c) => {
      const entry = at(c) as Record<string, unknown>;
      entry.kvm = entry.kvm2;
      delete entry.kvm2;
    },
    message: [`${home}type is kvm2 but a kvm block is set`, `${home}type is kvm2 but no kvm2 block is set`],
  },
  {
    what: 'first-generation type kvm',
    change: (c) => {
      const entry = at(c) as Record<string, unknown>;
      entry.type = 'kvm';
      entry.kvm = entry.kvm2;
      delete entry.kvm2;
    },
    message: `${home}unknown type "kvm" (the first-generation kvm provider does not run here; use type kvm2 with a kvm2: block (same fields))`,
  },
  { what: 'unknown type', change: (c) => (at(c).type = 'gcp'), message: `${home}unknown type "gcp" (known types: kvm2)` },
  { what: 'type missing', change: (c) => delete (at(c) as Record<string, unknown>).type, message: `${home}type is required` },
  { what: 'type not a string', change: (c) => (at(c).type = 2), message: `${home}type must be a string` },
  { what: 'provider name missing', change: (c) => delete (at(c) as Record<string, unknown>).name, message: 'providers[0]: name is required' },
  { what: 'provider name empty', change: (c) => (at(c).name = '  '), message: 'providers[0]: name must not be empty' },
  {
    what: 'duplicate provider names',
    change: (c) => c.push(structuredClone(at(c))),
    message: 'providers[1]: name "kvm2-home" is already used by providers[0]',
  },
  {
    what: 'kvm2 provider name unusable in file names',
    change: (c) => (at(c).name = 'kvm2 home'),
    message: `provider "kvm2 home": a kvm2 provider name ${fileSafe} (it becomes part of base image volume names)`,
  },
  {
    what: 'kvm2 provider name ..',
    change: (c) => (at(c).name = '..'),
    message: `provider "..": a kvm2 provider name ${dotName} (it becomes part of base image volume names)`,
  },
  { what: 'entry that is a string', change: (c) => (c[0] = 'kvm2-home' as unknown as Entry), message: 'providers[0] must be a mapping' },
];

function issuesOf(data: unknown): readonly string[] {
  try {
    validateProvidersConfig(data, 'test.yaml');
  } catch (err) {
    expect(err).toBeInstanceOf(ProvidersConfigError);
    return (err as ProvidersConfigError).issues;
  }
  throw new Error('config was accepted');
}

describe('providers config validation', () => {
  it('accepts the sample config', () => {
    expect(validateProvidersConfig(sample())).toHaveLength(1);
  });

  it('has at least 30 invalid cases', () => {
    expect(invalid.length).toBeGreaterThanOrEqual(30);
  });

  it.each(invalid)('refuses $what', ({ change, message }) => {
    const config = sample();
    change(config);
    expect(issuesOf(config)).toEqual(Array.isArray(message) ? message : [message]);
  });

  it('refuses a document that is not a list', () => {
    expect(issuesOf({ providers: sample() })).toEqual(['must be a list of provider entries']);
  });

  it('reports every problem at once, in config order', () => {
    const config = sample();
    delete firstHost(config).bridge;
    small(config).vcpus = 0;
    expect(issuesOf(config)).toEqual([`${home}kvm2.machineTypes.small: vcpus must be greater than 0`, `${home}kvm2.hosts[0]: bridge is required`]);
  });

  it('names the file and every issue in the error message', () => {
    const config = sample();
    delete firstHost(config).bridge;
    expect(() => validateProvidersConfig(config, '/etc/providers.yaml')).toThrow(
      'providers config /etc/providers.yaml: provider "kvm2-home": kvm2.hosts[0]: bridge is required',
    );
  });

  it('never quotes an image URL, which may carry credentials', () => {
    const config = sample();
    image(config).url = 'ftp://user:hunter2@mirror.example.org/d.qcow2';
    expect(issuesOf(config).join('\n')).not.toContain('hunter2');
  });

  it('accepts insecureIgnoreHostKey instead of knownHostsFile, and every optional field', () => {
    const config = sample();
    delete block(config).knownHostsFile;
    Object.assign(block(config), { insecureIgnoreHostKey: true, diskSizeGb: 20, vendorData: '#cloud-config\n', installGuestAgent: false });
    Object.assign(image(config), { sha256: 'A'.repeat(64), format: 'raw', firmware: 'bios' });
    Object.assign(firstHost(config), { socket: '/run/libvirt/libvirt-sock', pool: 'vms', virtType: 'qemu' });
    expect(validateProvidersConfig(config)[0]?.kvm2.hosts[0]?.virtType).toBe('qemu');
  });
});

describe('providers config YAML', () => {
  it('accepts the entry the dashboard offers to paste before the first host', () => {
    expect(parseProvidersConfig(providersConfigSample)[0]?.kvm2.hosts[0]?.bridge).toBe('br0');
  });

  it('reads a key with nothing after it as missing', () => {
    expect(() => parseProvidersConfig(providersConfigSample.replace('bridge: br0', 'bridge:'))).toThrow(`${home}kvm2.hosts[0]: bridge is required`);
  });

  it('reports YAML syntax errors by position without quoting the text', () => {
    let caught: unknown;
    try {
      parseProvidersConfig('- name: a\n  vendorData: "secret-token\n  type: kvm2\n', 'p.yaml');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ProvidersConfigError);
    const { issues } = caught as ProvidersConfigError;
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatch(/^YAML error [A-Z_]+ at line \d+, column \d+$/);
    expect((caught as Error).message).not.toContain('secret-token');
  });

  it('refuses duplicate keys', () => {
    expect(() => parseProvidersConfig('- name: a\n  name: b\n')).toThrow(/YAML error DUPLICATE_KEY/);
  });

  it('reads an empty file as no providers', () => {
    expect(parseProvidersConfig('')).toEqual([]);
  });

  it('accepts the commented sample shipped in config/', async () => {
    const [entry] = await loadProvidersConfig(join(process.cwd(), 'config', 'providers.sample.yaml'));
    expect(entry?.name).toBe('kvm2-home');
    expect(entry?.kvm2.hosts.map((host) => host.name)).toEqual(['beelink', 'nuc']);
  });

  it('loads a file, and names a missing one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'providers-config-'));
    try {
      const path = join(dir, 'providers.yaml');
      writeFileSync(path, providersConfigSample);
      const [entry] = await loadProvidersConfig(path);
      expect(entry?.kvm2.hosts[0]?.bridge).toBe('br0');
      await expect(loadProvidersConfig(join(dir, 'missing.yaml'))).rejects.toThrow(`providers config ${join(dir, 'missing.yaml')}: cannot be read (ENOENT)`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
