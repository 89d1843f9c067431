// GET /api/providers/{provider}/placement?machineType=...: the host automatic placement would
// choose right now for a Proxy of that machine type, and why every other host was refused.
import { z } from 'zod';

const hostReason = z.strictObject({ host: z.string(), reason: z.string() });

export const placementPreviewSchema = z.strictObject({
  provider: z.string(),
  machineType: z.string(),
  policy: z.enum(['spread', 'pack']),
  /** null when no host fits now (a Proxy would wait) */
  choice: hostReason.nullable(),
  refusals: z.array(hostReason),
});
export type PlacementPreview = z.infer<typeof placementPreviewSchema>;
