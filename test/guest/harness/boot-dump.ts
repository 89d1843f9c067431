// What a guest that never became Ready was doing, to tell the causes of a stuck boot apart (a
// first UEFI guest once sat idle for 15 min with 31 s of CPU and no DHCP request): the console the
// server captured (firmware, GRUB, kernel or cloud-init, and where it stopped), the CPU time used
// (idle or starved), the vCPU's registers (halted in the firmware, the bootloader or the kernel),
// the QEMU log, the DHCP lease and the NVRAM file. Written beside the lab's reports and summed up
// in the failing test's message, since CI keeps only the log's tail.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { virsh } from '@/test/lab/harness/lab';
import type { ApiClient } from './api-client';
import { domainMac, type GuestDomain, leasedAddress } from './guest-domain';

const consoleTailBytes = 8 * 1024;
const logTailBytes = 4 * 1024;

async function attempt(what: () => Promise<string> | string): Promise<string> {
  try {
    return (await what()).trim();
  } catch (err) {
    return `(unavailable: ${err instanceof Error ? err.message : String(err)})`;
  }
}

const tail = (text: string, bytes: number) => (text.length > bytes ? `…${text.slice(-bytes)}` : text);

/** Collects the dump into `reportsDir` and returns a summary for the test's message. */
export async function dumpStuckBoot(options: { api: ApiClient; proxy: string; domain: GuestDomain; reportsDir: string }): Promise<string> {
  const { api, proxy, domain } = options;
  const { host, name } = domain;
  const sections: Array<[string, string]> = [
    ['state', await attempt(() => virsh(['domstate', name, '--reason'], host))],
    ['cpu and state', await attempt(() => virsh(['domstats', name, '--cpu-total', '--state', '--vcpu'], host))],
    ['registers', await attempt(() => virsh(['qemu-monitor-command', name, '--hmp', 'info registers'], host))],
    ['dhcp lease', await attempt(async () => leasedAddress(host, await domainMac(domain)) ?? 'none: the guest never asked')],
    [
      'nvram',
      await attempt(() => {
        const file = `${host.rootPath}/var/lib/libvirt/qemu/nvram/${name}_VARS.fd`;
        return existsSync(file) ? `${statSync(file).size} bytes` : 'none';
      }),
    ],
    ['console (tail)', await attempt(async () => tail((await api.consoleStart(proxy)).text, consoleTailBytes))],
    ['qemu log (tail)', await attempt(() => tail(readFileSync(join(host.logsDir, 'qemu', `${name}.log`), 'utf8'), logTailBytes))],
  ];
  mkdirSync(options.reportsDir, { recursive: true });
  const file = join(options.reportsDir, `stuck-boot-${proxy}-${Date.now()}.txt`);
  writeFileSync(file, sections.map(([title, body]) => `=== ${title}\n${body}\n`).join('\n'));
  const line = (title: string, body: string) => `${title}: ${body.split('\n').slice(-12).join(' | ')}`;
  const summary = sections.filter(([title]) => title !== 'registers').map(([title, body]) => line(title, body));
  const rip = /RIP=([0-9a-f]+)/i.exec(sections[2]?.[1] ?? '')?.[1];
  const halted = /HLT=(\d)/.exec(sections[2]?.[1] ?? '')?.[1];
  return [`stuck boot of ${name} on ${host.name} (full dump: ${file})`, `RIP=${rip ?? '?'} HLT=${halted ?? '?'}`, ...summary].join('\n');
}
