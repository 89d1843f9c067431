// What the diagnosis reports for a running managed domain that boots no OS while the server keeps
// no console capture: shared by the unit test (over fakes) and the lab test (real hypervisors).
import type { DiagnosisStatus, DiagnosisStepId } from '@/lib/api/diagnosis';

export const noOsWithoutConsoleCapture: Record<DiagnosisStepId, DiagnosisStatus> = {
  host: 'pass',
  domain: 'pass',
  seed: 'pass',
  'cloud-init': 'unknown',
  agent: 'fail',
  address: 'fail',
  port: 'skipped',
  probe: 'skipped',
  egress: 'skipped',
};
