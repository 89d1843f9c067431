// Tests that expect a host to offer KVM ask the machine first (probeKvmDevice): a CI machine
// without /dev/kvm (or with one that cannot create a VM) runs the lab under software emulation.
// The usable case needs a real /dev/kvm and is exercised by host-setup-steps.test.ts where there is one.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { probeKvmDevice } from '../support/kvm-device';

const dir = mkdtempSync(join(tmpdir(), 'kvm-device-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('probeKvmDevice', () => {
  it('is not usable when the device does not exist, and says so', () => {
    expect(probeKvmDevice(join(dir, 'kvm'))).toEqual({ usable: false, reason: `${join(dir, 'kvm')} does not exist` });
  });

  it('is not usable when the path is not a character device', () => {
    writeFileSync(join(dir, 'plain'), '');
    expect(probeKvmDevice(join(dir, 'plain'))).toEqual({ usable: false, reason: `${join(dir, 'plain')} is not a character device` });
  });

  it('is not usable when the character device does not answer as KVM', () => {
    const probe = probeKvmDevice('/dev/null');
    expect(probe.usable).toBe(false);
    expect(probe.reason).toMatch(/^\/dev\/null cannot create a VM: /);
  });
});
