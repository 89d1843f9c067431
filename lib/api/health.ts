// GET /api/healthz: the process answers (no authentication, no runtime).
import { z } from 'zod';

export const livenessSchema = z.strictObject({ ok: z.literal(true) });
export type Liveness = z.infer<typeof livenessSchema>;
