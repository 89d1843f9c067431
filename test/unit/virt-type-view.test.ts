// The host card's virtualisation line and warning, from a check's details (lib/virt-type-view.ts).
import { describe, expect, it } from 'vitest';
import { describeVirtType } from '@/lib/virt-type-view';

describe('the virtualisation a host card shows', () => {
  it.each([
    ['KVM detected', { virtType: 'kvm', kvm: 'offered' }, 'KVM', undefined],
    ['no KVM, detected', { virtType: 'qemu', kvm: 'not offered' }, 'QEMU (software emulation)', undefined],
    ['qemu configured where KVM is offered', { virtType: 'qemu', kvm: 'offered' }, 'QEMU (software emulation)', undefined],
    [
      'KVM lost since an earlier check',
      { virtType: 'qemu', kvm: 'not offered', kvmLostAt: '2026-12-02T04:00:00.000Z' },
      'QEMU (software emulation)',
      'KVM no longer offered',
    ],
    ['kvm configured, none offered', { virtType: 'kvm', kvm: 'not offered' }, 'KVM', 'KVM configured but not offered'],
    ['a check that did not learn it', {}, undefined, undefined],
  ] as const)('%s', (_what, details, label, warning) => {
    const view = describeVirtType({ ...details });
    expect(view.label).toBe(label);
    expect(view.warning?.title).toBe(warning);
    if (warning) expect(view.warning?.text).toMatch(/\/dev\/kvm/);
  });

  it('says since when KVM is missing and what it costs', () => {
    const view = describeVirtType({ virtType: 'qemu', kvm: 'not offered', kvmLostAt: '2026-12-02T04:00:00.000Z' });
    expect(view.warning?.text).toContain('since 2026-12-02T04:00:00.000Z');
    expect(view.warning?.text).toContain('software emulation, many times slower');
  });
});
