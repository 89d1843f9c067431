// The `kvm2:` block of a providers config entry: every field, rule and message of the spec's
// config table. Defaults are applied later, by withDefaults in kvm2/kvm2.ts, so a loaded config
// still says what the admin wrote (and, for virtType, whether they wrote anything).
import { z } from 'zod';
import { autoZone, autoZoneReservedRule } from '@/lib/proxy-spec';
import { placementPolicies } from '@/server/providers/host-capacity';
import { parseSshAddress } from '@/server/ssh/address';

/** Letters, digits, dots, dashes and underscores: names that end up in volume names and IDs. */
export const fileSafeName = /^[A-Za-z0-9._-]+$/;
export const fileSafeRule = 'may contain only letters, digits, dots, dashes and underscores';
/** `.` and `..` pass the character rule but name directories: `hosts/../domains/x`. */
export const isDotName = (name: string): boolean => name === '.' || name === '..';
export const dotNameRule = 'is not a usable name: . and .. name directories';

/** The largest diskSizeGb: 64 TiB, far above any homelab pool, far below what overflows a byte count. */
export const maxDiskSizeGb = 65_536;

export const imageFormats = ['qcow2', 'raw'] as const;
export const firmwares = ['uefi', 'bios'] as const;
export const virtTypes = ['kvm', 'qemu'] as const;

export type ImageFormat = (typeof imageFormats)[number];
export type Firmware = (typeof firmwares)[number];
/** `kvm`: hardware virtualisation. `qemu`: software emulation, for hosts without working KVM. */
export type VirtType = (typeof virtTypes)[number];

const quoted = (input: unknown) => JSON.stringify(input);

const nonEmptyString = z.string().min(1);

const fileSafeString = z
  .string()
  .regex(fileSafeName, { error: (issue) => `${quoted(issue.input)} ${fileSafeRule}` })
  .refine((name) => !isDotName(name), { error: (issue) => `${quoted(issue.input)} ${dotNameRule}` });

export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

function isSshAddress(text: string): boolean {
  try {
    parseSshAddress(text);
    return true;
  } catch {
    return false;
  }
}

// The URL is never quoted in the message: it may carry credentials.
const httpUrl = z.string().refine(isHttpUrl, { error: 'must be an http(s) URL' });

const imageSchema = z.strictObject({
  url: httpUrl,
  sha256: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, { error: 'must be 64 hex characters' })
    .optional(),
  format: z.enum(imageFormats).optional(),
  firmware: z.enum(firmwares).optional(),
});

const machineTypeSchema = z.strictObject({
  vcpus: z.int().positive(),
  memoryMiB: z.int().positive(),
});

const hostSchema = z.strictObject({
  name: fileSafeString.refine((name) => name !== autoZone, { error: (issue) => `${quoted(issue.input)} ${autoZoneReservedRule}` }),
  address: z.string().refine(isSshAddress, { error: (issue) => `${quoted(issue.input)} is not host:port` }),
  user: nonEmptyString,
  socket: z.string().startsWith('/', { error: 'must be an absolute path' }).optional(),
  pool: nonEmptyString.optional(),
  bridge: nonEmptyString,
  virtType: z.enum(virtTypes).optional(),
});

export const kvm2BlockSchema = z
  .strictObject({
    sshKeyFile: nonEmptyString,
    knownHostsFile: nonEmptyString.optional(),
    insecureIgnoreHostKey: z.boolean().optional(),
    diskSizeGb: z
      .int()
      .positive()
      .refine((size) => size <= maxDiskSizeGb, { error: `must be at most ${maxDiskSizeGb} (GiB, that is 64 TiB)` })
      .optional(),
    vendorData: z.string().optional(),
    installGuestAgent: z.boolean().optional(),
    images: z.record(z.string(), imageSchema).optional(),
    machineTypes: z.record(z.string(), machineTypeSchema),
    hosts: z.array(hostSchema).min(1),
    placementPolicy: z.enum(placementPolicies).optional(),
  })
  .superRefine((block, ctx) => {
    if (block.knownHostsFile === undefined && block.insecureIgnoreHostKey !== true) {
      ctx.addIssue({
        code: 'custom',
        path: ['knownHostsFile'],
        message: 'is required unless insecureIgnoreHostKey is true',
      });
    }
    for (const key of Object.keys(block.images ?? {})) {
      if (!fileSafeName.test(key)) {
        ctx.addIssue({ code: 'custom', path: ['images'], message: `key ${quoted(key)} ${fileSafeRule}` });
      } else if (isDotName(key)) {
        ctx.addIssue({ code: 'custom', path: ['images'], message: `key ${quoted(key)} ${dotNameRule}` });
      }
    }
    if (Object.keys(block.machineTypes).length === 0) {
      ctx.addIssue({ code: 'custom', path: ['machineTypes'], message: 'needs at least one entry' });
    }
    const firstIndexByName = new Map<string, number>();
    block.hosts.forEach((host, index) => {
      const first = firstIndexByName.get(host.name);
      if (first === undefined) {
        firstIndexByName.set(host.name, index);
        return;
      }
      ctx.addIssue({
        code: 'custom',
        path: ['hosts', index, 'name'],
        message: `${quoted(host.name)} is already used by kvm2.hosts[${first}]`,
      });
    });
  });

/** The `kvm2:` block as written (after validation), before defaults. */
export type Kvm2Block = z.infer<typeof kvm2BlockSchema>;
export type Kvm2ImageBlock = z.infer<typeof imageSchema>;
export type Kvm2HostBlock = z.infer<typeof hostSchema>;
export type MachineType = z.infer<typeof machineTypeSchema>;

/** Rules on the entry around the block: its name becomes part of base image volume names. */
export function kvm2EntryIssues(entryName: string): string[] {
  if (!fileSafeName.test(entryName)) return [`a kvm2 provider name ${fileSafeRule} (it becomes part of base image volume names)`];
  if (isDotName(entryName)) return [`a kvm2 provider name ${dotNameRule} (it becomes part of base image volume names)`];
  return [];
}
