// The diagnosis's verdicts: for each checklist step, what the gathered facts mean (pass, fail,
// unknown), the evidence in words and, when it fails, the next thing to do. Pure functions of
// what diagnosis.ts gathered, so each step's logic is tested on its own.
import type { DiagnosisStatus, DiagnosisStepId } from '@/lib/api/diagnosis';
import { explainHealthReason } from '@/lib/health-reasons';
import type { Target } from '@/server/providers/contract';
import type { AddressAnswer, DomainFacts, SeedFacts } from '@/server/providers/instance-inspection';
import { cloudInitProgress } from './cloud-init-console';
import type { PortCheckResult } from './port-check';
import type { ProbeResult } from './probe';

export const stepTitles: Record<DiagnosisStepId, string> = {
  host: 'Provider and host reachable',
  domain: 'Domain defined and running',
  seed: 'Seed attached',
  'cloud-init': 'Boot reached cloud-init',
  agent: 'Guest agent answering',
  address: 'Address known',
  port: 'Proxy port open from the server',
  probe: 'Probe through the proxy',
  egress: 'Egress IP',
};

export interface Verdict {
  status: DiagnosisStatus;
  evidence: string;
  next?: string;
}

/** What one bounded fact-gathering call gave: its value, or why there is none. */
export type Gathered<T> = { kind: 'value'; value: T } | { kind: 'error'; message: string; timedOut: boolean };

const unknownFrom = (gathered: Extract<Gathered<unknown>, { kind: 'error' }>, what: string, next: string): Verdict => ({
  status: 'unknown',
  evidence: gathered.timedOut ? `${what}: ${gathered.message}` : `${what} failed: ${gathered.message}`,
  next,
});

export const skipped = (because: string): Verdict => ({ status: 'skipped', evidence: because });

export interface HostInput {
  provider: string;
  /** the provider entry runs (it may be misconfigured) */
  running: boolean;
  /** why the entry does not run */
  providerReason?: string;
  /** the health monitor's latest check of the instance's host */
  target?: Target;
  /** the diagnosis's own connection to the host; undefined when none was tried */
  connection?: Gathered<{ host: string; ms: number }>;
}

export function hostVerdict(input: HostInput): Verdict {
  if (!input.running) {
    return {
      status: 'fail',
      evidence: `provider ${input.provider} is not running: ${input.providerReason ?? 'not in the providers config'}`,
      next: 'Fix the provider entry in the providers config (Settings shows the reload status); the server reloads it on save.',
    };
  }
  const { target, connection } = input;
  const health = target
    ? `health check: ${target.reason}${target.message ? ` (${target.message})` : ''}, ${target.checkedAt ? `checked at ${target.checkedAt}` : 'not checked yet'}`
    : 'no health check of this host yet';
  const hint = target && !target.ready ? explainHealthReason(target.reason, target.details).lookAt : undefined;
  if (connection?.kind === 'error') {
    return {
      status: 'fail',
      evidence: `could not connect to the host: ${connection.message}; ${health}`,
      next: hint || 'Look at the host on the Hosts page: its health reason says where the connection breaks.',
    };
  }
  if (target && !target.ready) return { status: 'fail', evidence: `${target.name}: ${health}`, next: hint };
  const connected = connection ? `; connected for this diagnosis in ${Math.round(connection.value.ms)} ms` : '';
  return { status: 'pass', evidence: `${input.provider}${target ? `/${target.name}` : ''}: ${health}${connected}` };
}

export interface DomainInput {
  /** the Proxy has an instance recorded (a providerID) */
  recorded: boolean;
  /** why there is none yet: the Provisioned condition's message or the last error */
  waitingOn?: string;
  /** undefined when the provider cannot look at instances */
  facts?: Gathered<DomainFacts>;
  domain?: string;
  host?: string;
  providerType: string;
}

export function domainVerdict(input: DomainInput): Verdict {
  if (!input.recorded) {
    return {
      status: 'fail',
      evidence: `no instance created yet${input.waitingOn ? `: ${input.waitingOn}` : ''}`,
      next: "Read the Proxy's conditions and events: the reconciler says what it waits for (a download, pool space, a host).",
    };
  }
  const { facts } = input;
  if (!facts)
    return {
      status: 'unknown',
      evidence: `provider type ${input.providerType} cannot look at its instances`,
      next: "Check the instance on the provider's side.",
    };
  if (facts.kind === 'error') return unknownFrom(facts, 'reading the domain', 'Run the diagnosis again; if it persists, look at the host on the Hosts page.');
  const where = `domain ${input.domain} on host ${input.host}`;
  if (!facts.value.defined) {
    return { status: 'fail', evidence: `${where} is not defined`, next: 'The reconciler creates it again on its next pass; the events say why it went.' };
  }
  if (!facts.value.running) {
    return {
      status: 'fail',
      evidence: `${where} is ${facts.value.state}`,
      next:
        facts.value.state === 'paused' || facts.value.state === 'pmsuspended'
          ? `Someone paused it on the host: resume it there (virsh resume ${input.domain}); the dashboard never does.`
          : 'The reconciler replaces a stopped domain; if it keeps stopping, the host log of the domain (/var/log/libvirt/qemu/) says why.',
    };
  }
  return { status: 'pass', evidence: `${where} is ${facts.value.state}` };
}

export function seedVerdict(facts: Gathered<SeedFacts>): Verdict {
  if (facts.kind === 'error') return unknownFrom(facts, 'reading the domain XML', 'Run the diagnosis again.');
  const { volume, volumeExists, attachedAs } = facts.value;
  const recreate = 'Delete the Proxy and create it again: every Create builds a fresh seed.';
  if (!attachedAs) return { status: 'fail', evidence: `no disk of the domain carries the seed ${volume}`, next: recreate };
  if (!volumeExists) return { status: 'fail', evidence: `the domain names ${volume} as ${attachedAs}, but the pool no longer holds it`, next: recreate };
  return { status: 'pass', evidence: `${volume} attached as ${attachedAs}` };
}

const quote = (line: string | undefined, max = 160) => (line === undefined ? '' : JSON.stringify(line.length > max ? `${line.slice(0, max)}…` : line));

/** consoleText: the VM's serial console so far, or undefined when the server captures none. */
export function cloudInitVerdict(consoleText: string | undefined, domain: string | undefined): Verdict {
  // The server's boot capture holds the console, so a plain `virsh console` is refused on the host.
  const onHost = domain
    ? ` (the dashboard's console, or on the host virsh console --force ${domain}, which takes it from the server's boot capture)`
    : " (the dashboard's console)";
  if (consoleText === undefined) return { status: 'unknown', evidence: 'no console capture yet', next: `Watch the VM's serial console${onHost}.` };
  const progress = cloudInitProgress(consoleText);
  if (progress.lines === 0) {
    return {
      status: 'fail',
      evidence: 'the serial console printed nothing since capture began',
      next: `The VM boots no OS, or its firmware stops before the OS: check the image has a bootable disk for its firmware (uefi or bios)${onHost}.`,
    };
  }
  if (!progress.reached) {
    return {
      status: 'fail',
      evidence: `${progress.lines} console lines, none from cloud-init; the last: ${quote(progress.lastLine)}`,
      next: `The image boots no OS with cloud-init, or is still booting: read the console${onHost} and check the image ships cloud-init.`,
    };
  }
  const version = progress.version ? ` ${progress.version}` : '';
  const stages = progress.stages.length > 0 ? ` ran ${progress.stages.join(', ')}` : ' is running';
  const end = progress.finished ? `; finished${progress.datasource ? ` (${progress.datasource})` : ''}` : '';
  return { status: 'pass', evidence: `cloud-init${version}${stages}${end}` };
}

export function agentVerdict(answer: Gathered<AddressAnswer>): Verdict {
  if (answer.kind === 'error')
    return unknownFrom(answer, 'asking the guest agent', 'Run the diagnosis again; an agent that hangs answers nothing within the budget.');
  if (answer.value.error) {
    return {
      status: 'fail',
      evidence: `the host says: ${answer.value.error}`,
      next: 'The vendor-data script installs qemu-guest-agent on first boot (installGuestAgent): the VM needs a package mirror. Read /var/log/cloud-init-output.log in the guest, or the console; images without the agent need it baked in.',
    };
  }
  return { status: 'pass', evidence: `the agent answered with ${answer.value.addresses.length} address${answer.value.addresses.length === 1 ? '' : 'es'}` };
}

export interface AddressInput {
  agent: Gathered<AddressAnswer>;
  arp: Gathered<AddressAnswer>;
  /** the address the Proxy's status records */
  recorded?: string;
}

const sourceWords = { agent: 'the guest agent', arp: "the host's ARP table" } as const;

function sourceSaid(gathered: Gathered<AddressAnswer>, name: string): string {
  if (gathered.kind === 'error') return `${name}: ${gathered.message}`;
  if (gathered.value.error) return `${name}: ${gathered.value.error}`;
  return `${name}: ${gathered.value.addresses.length === 0 ? 'no addresses' : `only ${gathered.value.addresses.join(', ')}`}`;
}

export function addressVerdict(input: AddressInput): Verdict & { ip?: string } {
  for (const gathered of [input.agent, input.arp]) {
    if (gathered.kind !== 'value' || !gathered.value.ip) continue;
    const { ip, source } = gathered.value;
    const differs = input.recorded && input.recorded !== ip ? `; the Proxy's status still says ${input.recorded} (the reconciler's next pass updates it)` : '';
    return { status: 'pass', evidence: `${ip} from ${sourceWords[source]}${differs}`, ip };
  }
  const said = `${sourceSaid(input.agent, 'agent')}; ${sourceSaid(input.arp, 'ARP')}`;
  const unsure = input.agent.kind === 'error' && input.arp.kind === 'error';
  return {
    status: unsure ? 'unknown' : 'fail',
    evidence: `no usable IPv4 address (${said})`,
    next: 'The VM has no DHCP lease on the bridge, or neither the agent nor traffic to the host reveals it: check DHCP on the bridge network and virsh domifaddr --source agent / --source arp on the host.',
  };
}

export function portVerdict(target: { host: string; port: number }, result: PortCheckResult): Verdict {
  const where = `${target.host}:${target.port}`;
  if (result.outcome === 'open') return { status: 'pass', evidence: `${where} accepted a TCP connection in ${Math.round(result.latencyMs)} ms` };
  if (result.outcome === 'refused') {
    return {
      status: 'fail',
      evidence: `${where} refused the connection: nothing listens on port ${target.port}`,
      next: `Check the proxy runs in the guest and listens on ${target.port} (systemctl status squid; http_port in squid.conf); cloud-init may still be installing it.`,
    };
  }
  return {
    status: 'fail',
    evidence: `${where}: ${result.message ?? result.outcome}`,
    next: 'Check this server routes to the VM network and nothing filters the port between them; a guest still booting answers nothing either.',
  };
}

export function probeVerdict(result: ProbeResult, options: { probeUrl?: string }): Verdict {
  if (result.healthy) return { status: 'pass', evidence: `${result.message} (${Math.round(result.latencyMs)} ms)` };
  return {
    status: 'fail',
    evidence: `${result.reason}: ${result.message}`,
    next: options.probeUrl
      ? "Check the proxy lets this server in (Squid's http_access and acl lines) and reaches PROBE_URL from the guest."
      : "Check the proxy lets this server in (Squid's http_access and acl lines).",
  };
}

export function egressVerdict(result: ProbeResult): Verdict {
  if (result.egressIP) return { status: 'pass', evidence: `the IP-echo URL sees ${result.egressIP}` };
  return {
    status: 'fail',
    evidence: 'the IP-echo URL gave no address through the proxy',
    next: 'Check IP_ECHO_URL answers with the caller\'s address (plain text, or JSON with "ip" or "origin") and the proxy may reach it.',
  };
}
