// GET /api/config: the validated providers config as the dashboard needs it: each entry, whether
// it runs, the catalogue the create form offers (for providers with host inventory) and the last
// reload error. Never key or known_hosts paths, never vendor data, image URLs without credentials.
import { z } from 'zod';

export const catalogueSchema = z.strictObject({
  hosts: z.array(z.strictObject({ name: z.string(), address: z.string(), user: z.string(), pool: z.string(), bridge: z.string(), virtType: z.string() })),
  images: z.array(z.strictObject({ key: z.string(), url: z.string(), format: z.string(), firmware: z.string(), sha256: z.string().optional() })),
  machineTypes: z.array(z.strictObject({ name: z.string(), vcpus: z.number(), memoryMiB: z.number() })),
  diskSizeGb: z.number(),
});
export type Catalogue = z.infer<typeof catalogueSchema>;

/**
 * What the dashboard may offer for a provider, declared by its type's registration: `hosts`, pages
 * of its hosts (pools, images, VMs); `setup`, adding, editing and removing hosts from the dashboard;
 * `placement`, choosing a host for a Proxy when none is named; `console`, a Proxy VM's serial console.
 * The browser reads these, never the provider's type.
 */
export const providerCapabilitiesSchema = z.strictObject({
  hosts: z.boolean(),
  setup: z.boolean(),
  placement: z.boolean(),
  console: z.boolean(),
});
export type ProviderCapabilities = z.infer<typeof providerCapabilitiesSchema>;

export const configProviderSchema = z.strictObject({
  name: z.string(),
  type: z.string(),
  available: z.boolean(),
  reason: z.string().optional(),
  capabilities: providerCapabilitiesSchema,
  /** absent for providers without a catalogue (no host inventory) */
  catalogue: catalogueSchema.optional(),
});
export type ConfigProvider = z.infer<typeof configProviderSchema>;

export const configSummarySchema = z.strictObject({
  /** the providers config file the server reads; absent when none is set */
  source: z.string().optional(),
  loadedAt: z.string().optional(),
  providers: z.array(configProviderSchema),
  /** the last load that failed and was not applied; cleared by the next good one */
  lastError: z.strictObject({ at: z.string(), issues: z.array(z.string()) }).optional(),
});
export type ConfigSummary = z.infer<typeof configSummarySchema>;
