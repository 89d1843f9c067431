// Body of GET /api/proxies/{name}/diagnosis: why a Proxy is (not) Ready, as an ordered checklist
// from the host to the egress IP. Each step says what was seen (evidence) and, when it fails, the
// next thing to do.
import { z } from 'zod';

export const diagnosisStepIds = ['host', 'domain', 'seed', 'cloud-init', 'agent', 'address', 'port', 'probe', 'egress'] as const;
export type DiagnosisStepId = (typeof diagnosisStepIds)[number];

export const diagnosisStatuses = ['pass', 'fail', 'unknown', 'skipped'] as const;
export type DiagnosisStatus = (typeof diagnosisStatuses)[number];

export const diagnosisStepSchema = z.strictObject({
  id: z.enum(diagnosisStepIds),
  title: z.string(),
  status: z.enum(diagnosisStatuses),
  evidence: z.string(),
  /** what to do next; present when the step failed or could not tell */
  next: z.string().optional(),
  durationMs: z.number(),
});
export type DiagnosisStep = z.infer<typeof diagnosisStepSchema>;

export const diagnosisSchema = z.strictObject({
  proxy: z.string(),
  /** RFC 3339 */
  startedAt: z.string(),
  durationMs: z.number(),
  /** in checklist order */
  steps: z.array(diagnosisStepSchema),
  /** the first failing step, or null when none failed */
  firstFailure: z.enum(diagnosisStepIds).nullable(),
});
export type Diagnosis = z.infer<typeof diagnosisSchema>;
