// Bodies of adding a hypervisor from the dashboard: the server's SSH identity (/api/ssh-identity),
// the six steps of the Add host wizard (/api/host-setup/*), each answering what it found or where
// it failed with the fix, and the saves (/api/providers/{provider}/hosts[/{host}]). A failed step
// is an answer (200, `ok: false`), not an HTTP error: the wizard shows it. Paths of key files on
// the server are never in an answer; the public key and fingerprints are public.
import { z } from 'zod';
import { autoZone, autoZoneReservedRule } from '@/lib/proxy-spec';
import { collection } from './collection';
import { targetSchema } from './providers';

export const virtTypeChoices = ['kvm', 'qemu'] as const;

/**
 * Every host field is written into the providers config and handed to ssh and libvirt: a newline
 * there could start a second YAML key or command-line option, so no control character is allowed.
 */
const controlCharacter = /[\u0000-\u001f\u007f]/;
const noControlCharacter = { error: 'must not contain a newline or other control character' };
const hostName = z
  .string()
  .trim()
  .min(1, { error: 'is required' })
  .max(253, { error: 'is too long' })
  .refine((text) => !controlCharacter.test(text), noControlCharacter);
/** An absolute path on the server or the host (a key file, the libvirt socket). */
const absolutePath = z
  .string()
  .trim()
  .startsWith('/', { error: 'must be an absolute path' })
  .refine((text) => !controlCharacter.test(text), noControlCharacter);
const socketPath = z
  .string()
  .startsWith('/', { error: 'must be an absolute path' })
  .refine((text) => !controlCharacter.test(text), noControlCharacter);
/** A configured host's name: `auto` is placement.zone's word for "choose for me". */
const configuredHostName = hostName.refine((name) => name !== autoZone, { error: `"${autoZone}" ${autoZoneReservedRule}` });

/** Key files of a provider entry the save will create (absent: the entry exists already). */
export const newEntryFilesSchema = z.strictObject({
  sshKeyFile: absolutePath,
  knownHostsFile: absolutePath,
});

/** The host being added, as far as the wizard got. */
export const candidateSchema = z.strictObject({
  provider: hostName,
  /** only for a provider entry that does not exist yet */
  newEntry: newEntryFilesSchema.optional(),
  address: hostName,
  user: hostName.optional(),
  name: configuredHostName.optional(),
  socket: socketPath.optional(),
  pool: hostName.optional(),
  bridge: hostName.optional(),
  virtType: z.enum(virtTypeChoices).optional(),
});
export type Candidate = z.infer<typeof candidateSchema>;

/** Step 1's confirmation: the fingerprint the admin compared. */
export const trustHostKeySchema = z.strictObject({
  provider: hostName,
  newEntry: newEntryFilesSchema.optional(),
  address: hostName,
  fingerprint: z.string().regex(/^SHA256:[A-Za-z0-9+/]{43}$/, { error: 'must be a SHA256: fingerprint as ssh-keygen -l prints it' }),
});

export const stepFailureSchema = z.strictObject({
  /** the health check's reason word: Unreachable, Unauthorized, Forbidden, ... */
  reason: z.string(),
  message: z.string(),
  /** what to do about it, with commands to run */
  fix: z.string(),
});
export type StepFailure = z.infer<typeof stepFailureSchema>;

const step = <T extends z.ZodRawShape>(shape: T) =>
  z.strictObject({
    ok: z.boolean(),
    failure: stepFailureSchema.optional(),
    /** what works but should be fixed, e.g. a key file others may write */
    warnings: z.array(z.string()).optional(),
    ...shape,
  });

export const hostKeyStepSchema = step({
  hostKey: z
    .strictObject({
      keyType: z.string(),
      fingerprint: z.string(),
      /** what to run on the host to print the same fingerprint */
      hostCommand: z.string(),
      /** known: already trusted; unknown: to confirm; changed: known_hosts holds another key */
      standing: z.enum(['known', 'unknown', 'changed']),
      knownFingerprint: z.string().optional(),
    })
    .optional(),
});
export type HostKeyStep = z.infer<typeof hostKeyStepSchema>;

export const trustStepSchema = step({ written: z.boolean() });
export const authenticateStepSchema = step({});
export const libvirtStepSchema = step({ libvirtVersion: z.string().optional(), hostname: z.string().optional() });

export const setupPoolSchema = z.strictObject({
  name: z.string(),
  state: z.string(),
  capacityGiB: z.number().optional(),
  availableGiB: z.number().optional(),
});
export const setupBridgeSchema = z.strictObject({
  name: z.string(),
  /** interface: a host bridge libvirt's interface driver lists; network: a libvirt network's bridge */
  source: z.enum(['interface', 'network']),
  network: z.string().optional(),
});
export const resourcesStepSchema = step({
  pools: z.array(setupPoolSchema).optional(),
  bridges: z.array(setupBridgeSchema).optional(),
  defaults: z.strictObject({ pool: z.string().optional(), bridge: z.string().optional() }).optional(),
  /** what could not be listed, and why */
  notes: z.array(z.string()).optional(),
});
export type ResourcesStep = z.infer<typeof resourcesStepSchema>;

export const capabilitiesStepSchema = step({
  /** the virtualisation type libvirt offers by default: kvm, or qemu (software emulation) */
  virtType: z.enum(virtTypeChoices).optional(),
  uefi: z.boolean().optional(),
  /** one sentence: what the host will run */
  summary: z.string().optional(),
});
export type CapabilitiesStep = z.infer<typeof capabilitiesStepSchema>;

export const checkStepSchema = step({ target: targetSchema.optional() });

export const identitySchema = z.strictObject({
  /** the provider entry whose sshKeyFile this is; absent: the key a new entry would use */
  provider: z.string().optional(),
  /** false: the configured key file does not exist yet (it can be generated) */
  exists: z.boolean(),
  publicKey: z.string().optional(),
  keyType: z.string().optional(),
  fingerprint: z.string().optional(),
  /** why the public half could not be read */
  problem: z.string().optional(),
});
export type Identity = z.infer<typeof identitySchema>;
export const identityListSchema = collection('identities', identitySchema);
export const generateIdentitySchema = z.strictObject({ provider: hostName.optional() });

/** The fields of a host a save writes (name comes from the path on edits). */
export const hostFieldsSchema = z.strictObject({
  address: hostName,
  user: hostName,
  bridge: hostName,
  pool: hostName.optional(),
  socket: socketPath.optional(),
  virtType: z.enum(virtTypeChoices).optional(),
});
export const addHostSchema = hostFieldsSchema.extend({ name: configuredHostName, newEntry: newEntryFilesSchema.optional() });

/** An edit: a value sets the field, null removes an optional one, a field left out stays as it is. */
export const editHostSchema = z.strictObject({
  address: hostName.optional(),
  user: hostName.optional(),
  bridge: hostName.optional(),
  pool: hostName.nullable().optional(),
  socket: socketPath.nullable().optional(),
  virtType: z.enum(virtTypeChoices).nullable().optional(),
});

export const savedHostsSchema = z.strictObject({
  provider: z.string(),
  /** the entry's hosts after the save, in config order */
  hosts: z.array(z.string()),
  /** the previous file was kept beside it as `<file>.bak` */
  backupKept: z.boolean(),
});
export type SavedHosts = z.infer<typeof savedHostsSchema>;
