// Where the real-guest tests' timings go: printed, and merged into .lab/guest-timings.json (one key
// per variant) for the report. Timings are observations here, never assertions.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Lab } from '@/test/lab/harness/lab';

export function recordGuestTimings(lab: Lab, variant: string, values: Record<string, number>): void {
  const path = join(lab.dir, 'guest-timings.json');
  const all = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : {};
  all[variant] = { ...values, at: new Date().toISOString() };
  writeFileSync(path, `${JSON.stringify(all, null, 2)}\n`);
  console.info(`[guest timings] ${variant}: ${JSON.stringify(values)}`);
}
