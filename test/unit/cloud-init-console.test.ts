// Recognising cloud-init on a VM's serial console: its per-stage banner, its journal-prefixed lines
// and its `finished` line (with the datasource), through colour escapes and CRLF line ends; a console
// with firmware or kernel output only has not reached it.
import { describe, expect, it } from 'vitest';
import { cloudInitProgress, consoleLines } from '@/server/control/cloud-init-console';

const debianBoot = [
  '\u001b[2J\u001b[01;01H\u001b[=3h\u001b[2J\u001b[01;01HBdsDxe: loading Boot0001 "UEFI Misc Device" from PciRoot(0x0)/Pci(0x1,0x3)',
  '[    0.000000] Linux version 6.1.0-27-cloud-amd64',
  "[    5.312] cloud-init[412]: Cloud-init v. 22.4.2 running 'init-local' at Tue, 01 Dec 2026 10:00:00 +0000. Up 5.10 seconds.",
  "[    9.010] cloud-init[501]: Cloud-init v. 22.4.2 running 'init' at Tue, 01 Dec 2026 10:00:04 +0000. Up 9.00 seconds.",
  '[    9.200] cloud-init[501]: ci-info: ++++++++++++++++++++++++Net device info+++++++++++++++++++++++',
  "[   20.110] cloud-init[700]: Cloud-init v. 22.4.2 running 'modules:config' at Tue, 01 Dec 2026 10:00:15 +0000. Up 20.10 seconds.",
  "[   30.500] cloud-init[720]: Cloud-init v. 22.4.2 running 'modules:final' at Tue, 01 Dec 2026 10:00:25 +0000. Up 30.40 seconds.",
  '[   45.700] cloud-init[720]: Cloud-init v. 22.4.2 finished at Tue, 01 Dec 2026 10:00:40 +0000. Datasource DataSourceNoCloud [seed=/dev/sr0][dsmode=net].  Up 45.61 seconds',
  '',
  'Debian GNU/Linux 12 proxy-0123 ttyS0',
  '',
  'proxy-0123 login: ',
].join('\r\n');

describe('cloud-init on the serial console', () => {
  it('reads every stage, the version, the end and the datasource of a whole Debian boot', () => {
    expect(cloudInitProgress(debianBoot)).toEqual({
      reached: true,
      version: '22.4.2',
      stages: ['init-local', 'init', 'modules:config', 'modules:final'],
      finished: true,
      datasource: 'DataSourceNoCloud [seed=/dev/sr0][dsmode=net]',
      lines: 10,
      lastLine: 'proxy-0123 login:',
    });
  });

  it.each([
    [
      'a banner without a journal prefix (cloud-init writing to the console itself)',
      "Cloud-init v. 23.1 running 'init' at Mon. Up 3 seconds.",
      { reached: true, stages: ['init'], finished: false },
    ],
    [
      'a journal-prefixed line only (a boot captured part way)',
      '[  12.0] cloud-init[88]: ci-info: no authorized SSH keys fingerprints found',
      { reached: true, stages: [], finished: false },
    ],
    ['a finished line without a datasource', 'Cloud-init v. 24.1 finished at Mon, 01 Jan 2024', { reached: true, stages: [], finished: true }],
    [
      'firmware output only (a disk with no OS)',
      'BdsDxe: failed to load Boot0001 "UEFI Misc Device": Not Found\r\nBdsDxe: No bootable option or device was found.',
      { reached: false, stages: [], finished: false },
    ],
    [
      'a kernel that mentions cloud-init in its command line only',
      '[ 0.0] Kernel command line: ds=nocloud cloud-init=disabled',
      { reached: false, stages: [], finished: false },
    ],
    ['nothing at all', '', { reached: false, stages: [], finished: false }],
  ])('%s', (_what, text, expected) => {
    expect(cloudInitProgress(text)).toMatchObject(expected);
  });

  it('keeps the last non-empty line and counts only non-empty ones, escapes stripped', () => {
    expect(cloudInitProgress('\u001b[0;1mfirst\u001b[0m\r\n\r\n  second  \r\n\u001b]0;title\u0007\r\n')).toMatchObject({ lines: 2, lastLine: 'second' });
    expect(consoleLines('a\rb\r\nc\n\u001b[Kd')).toEqual(['a', 'b', 'c', 'd']);
    // OVMF's countdown rewrites its line by moving the cursor there.
    expect(cloudInitProgress('Press ESC in 5 seconds\u001b[25;01HPress ESC in 4 seconds')).toMatchObject({ lines: 2, lastLine: 'Press ESC in 4 seconds' });
  });

  // A guest controls its console, and the diagnosis reads the whole 256 KiB buffer: a `finished`
  // line followed by 20,000 `Datasource` words without the `.  Up` that ends one cost 1.6 s of
  // blocked event loop per diagnosis with the old lazy pattern. Best of three runs, so a busy
  // machine's one slow scheduling slice is not what is measured.
  it.each([
    ['a finished line of Datasource words that never end', 'Cloud-init v. 1 finished at ' + 'Datasource x'.repeat(21_800)],
    ['finished lines with datasources that never end, repeated', 'Cloud-init v. 1 finished at Datasource x. '.repeat(6_200)],
    ['a banner whose stage quote never closes', "Cloud-init v. 1 running '" + 'x'.repeat(262_000)],
    ['banners whose version never ends', 'Cloud-init v. ' + 'v'.repeat(262_000)],
  ])('reads a crafted 256 KiB console line in well under 10 ms: %s', (_what, line) => {
    expect(line.length).toBeGreaterThan(250_000);
    const times = [0, 1, 2].map(() => {
      const started = performance.now();
      cloudInitProgress(`[ 1.0] booting\r\n${line}\r\n`);
      return performance.now() - started;
    });
    expect(Math.min(...times)).toBeLessThan(10);
  });

  it('still finds the datasource after a long date, and none past the end of a finished line', () => {
    expect(
      cloudInitProgress(
        'Cloud-init v. 24.1 finished at Mon, 01 Jan 2024 10:00:00 +0000. Datasource DataSourceNoCloud [seed=/dev/vdb][dsmode=net].  Up 9.5 seconds',
      ),
    ).toMatchObject({
      finished: true,
      version: '24.1',
      datasource: 'DataSourceNoCloud [seed=/dev/vdb][dsmode=net]',
    });
    const unended = cloudInitProgress('Cloud-init v. 24.1 finished at Mon. Datasource DataSourceNone.');
    expect(unended).toMatchObject({ finished: true, version: '24.1' });
    expect(unended.datasource).toBeUndefined();
  });
});
