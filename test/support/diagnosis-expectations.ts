// What the diagnosis reports for a running managed domain that boots no OS: without a console
// capture (the unit test's fakes) and with the firmware's output captured (the lab).
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

export const noOsWithFirmwareOutput: Record<DiagnosisStepId, DiagnosisStatus> = { ...noOsWithoutConsoleCapture, 'cloud-init': 'fail' };
