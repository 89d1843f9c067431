// The diagnosis as a whole over fakes: the checklist's order and dependencies (a step whose
// prerequisite did not pass is skipped), the first failure named, the independent guest steps run
// at once, each within its time budget (a hung source reads unknown, the rest still answer), the
// inspection always closed (a connection that opens too late included), and Static proxies.
import { describe, expect, it } from 'vitest';
import type { Diagnosis } from '@/lib/api/diagnosis';
import type { ProxyView } from '@/lib/proxy-spec';
import { systemClock } from '@/server/control/clock';
import { type DiagnosisBudgets, type DiagnosisOptions, DiagnosisService } from '@/server/control/diagnosis';
import type { PortCheckResult } from '@/server/control/port-check';
import type { ProbeRequest, ProbeResult } from '@/server/control/probe';
import type { Provider, Target } from '@/server/providers/contract';
import { ErrTransient } from '@/server/providers/errors';
import type { AddressAnswer, AddressSource, DomainFacts, InstanceInspection, SeedFacts } from '@/server/providers/instance-inspection';
import { noOsWithoutConsoleCapture } from '@/test/support/diagnosis-expectations';
import { managedProxyView } from '@/test/support/proxy-view';

const providerID = 'hosts/lab1/domains/proxy-0123456789abcdef';

/** The diagnosed Proxy: p1 on home's host lab1, its instance made and still Provisioning. */
function proxyView(overrides: Partial<ProxyView> = {}, status: Partial<ProxyView['status']> = {}): ProxyView {
  return managedProxyView({
    name: 'p1',
    provider: 'home',
    instanceName: 'proxy-0123456789abcdef',
    ...overrides,
    status: { phase: 'Provisioning', healthy: false, conditions: [], specHash: 'h', providerID, host: 'lab1', ...status },
  });
}

const target = (ready = true): Target => ({
  name: 'lab1',
  ready,
  reason: ready ? 'Reachable' : 'PoolNotActive',
  message: ready ? '' : 'storage pool default is not running',
  details: { pool: 'default' },
  latencyMs: 12,
  checkedAt: '2026-12-01T10:00:00Z',
});

type Script = {
  domain?: () => Promise<DomainFacts>;
  seed?: () => Promise<SeedFacts>;
  agent?: () => Promise<AddressAnswer>;
  arp?: () => Promise<AddressAnswer>;
};

const running: DomainFacts = { defined: true, state: 'running', running: true };
const attached: SeedFacts = { volume: 'proxy-0123456789abcdef-seed.iso', volumeExists: true, attachedAs: 'sda (cdrom)' };
const agentUp: AddressAnswer = { source: 'agent', addresses: ['127.0.0.1', '10.0.0.5'], ip: '10.0.0.5' };
const agentDown: AddressAnswer = { source: 'agent', addresses: [], error: 'Guest agent is not responding: QEMU guest agent is not connected' };
const arpNone: AddressAnswer = { source: 'arp', addresses: [] };

class FakeInspection implements InstanceInspection {
  readonly host = 'lab1';
  readonly domain = 'proxy-0123456789abcdef';
  closed = 0;
  readonly started: string[] = [];
  readonly finished: string[] = [];

  constructor(private readonly script: Script) {}

  private async track<T>(what: string, work: (() => Promise<T>) | undefined, fallback: T): Promise<T> {
    this.started.push(what);
    const value = work ? await work() : fallback;
    this.finished.push(what);
    return value;
  }

  domainFacts = () => this.track('domain', this.script.domain, running);
  seed = () => this.track('seed', this.script.seed, attached);
  addresses = (source: AddressSource) => this.track(source, this.script[source], source === 'agent' ? agentUp : arpNone);
  close = async () => void (this.closed += 1);
}

interface Setup {
  view?: ProxyView;
  script?: Script;
  open?: () => Promise<InstanceInspection>;
  target?: Target;
  providerRuns?: boolean;
  inspector?: boolean;
  console?: string;
  port?: PortCheckResult;
  probe?: ProbeResult;
  ipEchoUrl?: string;
  budgets?: Partial<DiagnosisBudgets>;
}

const testBudgets: DiagnosisBudgets = { connectMs: 200, domainMs: 200, guestMs: 200, portMs: 200, probeMs: 200 };

function setUp(setup: Setup = {}) {
  const inspection = new FakeInspection(setup.script ?? {});
  const probes: ProbeRequest[] = [];
  const ports: Array<{ host: string; port: number }> = [];
  const provider = {
    name: 'home',
    type: 'kvm2',
    ...(setup.inspector === false ? {} : { inspector: { open: setup.open ?? (async () => inspection) } }),
  } as unknown as Provider;
  const options: DiagnosisOptions = {
    proxy: () => setup.view ?? proxyView(),
    providers: {
      get: () => (setup.providerRuns === false ? undefined : provider),
      summary: () =>
        setup.providerRuns === false
          ? { available: false, reason: 'kvm2.hosts[0]: bridge is required', targets: [] }
          : { available: true, targets: [setup.target ?? target()] },
    },
    consoleLog: () => setup.console,
    probe: async (request) => {
      probes.push(request);
      return (
        setup.probe ?? {
          healthy: true,
          reason: 'TargetReachable',
          message: 'the target answered HTTP 200 through the proxy',
          latencyMs: 20,
          statusCode: 200,
          egressIP: '203.0.113.7',
        }
      );
    },
    portCheck: async ({ host, port }) => {
      ports.push({ host, port });
      return setup.port ?? { outcome: 'open', latencyMs: 2 };
    },
    probeUrl: 'http://198.18.0.1/probe',
    ipEchoUrl: setup.ipEchoUrl,
    probeTimeoutMs: 5_000,
    clock: systemClock,
    budgets: { ...testBudgets, ...setup.budgets },
  };
  return { service: new DiagnosisService(options), inspection, probes, ports };
}

const statuses = (diagnosis: Diagnosis) => Object.fromEntries(diagnosis.steps.map((step) => [step.id, step.status]));
const step = (diagnosis: Diagnosis, id: string) => diagnosis.steps.find((candidate) => candidate.id === id);
const cloudInitConsole =
  "cloud-init[1]: Cloud-init v. 22.4.2 running 'init' at Mon\r\nCloud-init v. 22.4.2 finished at Mon. Datasource DataSourceNoCloud [seed=/dev/sr0].  Up 40 seconds\r\n";

describe('the diagnosis checklist', () => {
  it('passes every step for a Proxy that works, in checklist order, probing the address the agent reports', async () => {
    const { service, inspection, probes, ports } = setUp({ console: cloudInitConsole, ipEchoUrl: 'http://198.18.0.1/ip' });
    const diagnosis = await service.diagnose('p1');
    expect(diagnosis.steps.map((entry) => entry.id)).toEqual(['host', 'domain', 'seed', 'cloud-init', 'agent', 'address', 'port', 'probe', 'egress']);
    expect(new Set(Object.values(statuses(diagnosis)))).toEqual(new Set(['pass']));
    expect(diagnosis.firstFailure).toBeNull();
    expect(step(diagnosis, 'address')?.evidence).toBe('10.0.0.5 from the guest agent');
    expect(step(diagnosis, 'egress')?.evidence).toBe('the IP-echo URL sees 203.0.113.7');
    expect(ports).toEqual([{ host: '10.0.0.5', port: 3128 }]);
    expect(probes).toEqual([
      expect.objectContaining({ host: '10.0.0.5', port: 3128, targetUrl: 'http://198.18.0.1/probe', ipEchoUrl: 'http://198.18.0.1/ip', timeoutMs: 200 }),
    ]);
    expect(inspection.closed).toBe(1);
    expect(diagnosis.steps.every((entry) => entry.next === undefined)).toBe(true);
  });

  it('on a VM that boots no OS: the early steps pass, cloud-init is unknown without a console capture, it fails at the agent and skips what needs an address', async () => {
    const { service, probes, ports } = setUp({ script: { agent: async () => agentDown } });
    const diagnosis = await service.diagnose('p1');
    expect(statuses(diagnosis)).toEqual(noOsWithoutConsoleCapture);
    expect(diagnosis.firstFailure).toBe('agent');
    expect(step(diagnosis, 'cloud-init')).toMatchObject({
      evidence: 'no console capture yet',
      next: expect.stringContaining('virsh console --force proxy-0123456789abcdef'),
    });
    expect(step(diagnosis, 'agent')?.next).toContain('qemu-guest-agent');
    expect(step(diagnosis, 'port')?.evidence).toBe('needs "Address known" to pass');
    expect(step(diagnosis, 'egress')?.evidence).toBe('no IP_ECHO_URL set');
    expect(probes).toEqual([]);
    expect(ports).toEqual([]);
  });

  it('with a console that shows firmware only, fails first at "boot reached cloud-init", quoting the last line', async () => {
    const { service } = setUp({ script: { agent: async () => agentDown }, console: 'BdsDxe: No bootable option or device was found.\r\n' });
    const diagnosis = await service.diagnose('p1');
    expect(diagnosis.firstFailure).toBe('cloud-init');
    expect(step(diagnosis, 'cloud-init')?.evidence).toBe('1 console lines, none from cloud-init; the last: "BdsDxe: No bootable option or device was found."');
  });

  it('fails at the port when nothing listens, and skips the probe', async () => {
    const { service, probes } = setUp({ console: cloudInitConsole, port: { outcome: 'refused', latencyMs: 1, message: 'connect ECONNREFUSED 10.0.0.5:3128' } });
    const diagnosis = await service.diagnose('p1');
    expect(diagnosis.firstFailure).toBe('port');
    expect(step(diagnosis, 'port')).toMatchObject({ status: 'fail', evidence: '10.0.0.5:3128 refused the connection: nothing listens on port 3128' });
    expect(step(diagnosis, 'probe')?.status).toBe('skipped');
    expect(probes).toEqual([]);
  });

  it('when the host cannot be reached: fails there with the health hint, skips the instance steps, still checks the recorded address', async () => {
    const { service, ports } = setUp({
      view: proxyView({}, { ip: '10.0.0.9' }),
      target: { ...target(false), reason: 'Unreachable', message: 'connect ECONNREFUSED', details: { address: '198.18.0.2:22' } },
      open: () => Promise.reject(new ErrTransient('connecting to host lab1: connect ECONNREFUSED 198.18.0.2:22')),
    });
    const diagnosis = await service.diagnose('p1');
    expect(statuses(diagnosis)).toMatchObject({ host: 'fail', domain: 'skipped', seed: 'skipped', agent: 'skipped', address: 'unknown', port: 'pass' });
    expect(step(diagnosis, 'host')?.evidence).toContain('could not connect to the host: connecting to host lab1: connect ECONNREFUSED 198.18.0.2:22');
    expect(step(diagnosis, 'host')?.next).toContain('198.18.0.2:22');
    expect(ports).toEqual([{ host: '10.0.0.9', port: 3128 }]);
  });

  it('fails at the host when its health check fails, though the connection works', async () => {
    const { service } = setUp({ target: target(false), console: cloudInitConsole });
    const diagnosis = await service.diagnose('p1');
    expect(diagnosis.firstFailure).toBe('host');
    expect(step(diagnosis, 'host')).toMatchObject({
      evidence: expect.stringContaining('PoolNotActive'),
      next: 'virsh pool-start default and virsh pool-autostart default on the host.',
    });
    expect(step(diagnosis, 'domain')?.status).toBe('pass');
  });

  it('fails at the host when the provider entry does not run, naming why', async () => {
    const { service } = setUp({ providerRuns: false });
    const diagnosis = await service.diagnose('p1');
    expect(step(diagnosis, 'host')).toMatchObject({ status: 'fail', evidence: 'provider home is not running: kvm2.hosts[0]: bridge is required' });
    expect(statuses(diagnosis)).toMatchObject({ domain: 'skipped', port: 'skipped' });
  });

  it('fails at the domain while no instance exists, with what the reconciler waits for', async () => {
    const view = proxyView(
      {},
      {
        providerID: undefined,
        phase: 'Pending',
        conditions: [
          {
            type: 'Provisioned',
            status: 'False',
            reason: 'QuotaExceeded',
            message: 'pool default has 1 GiB, needs 10 GiB',
            lastTransitionTime: '2026-12-01T10:00:00Z',
          },
        ],
      },
    );
    const { service, inspection } = setUp({ view });
    const diagnosis = await service.diagnose('p1');
    expect(step(diagnosis, 'domain')).toMatchObject({ status: 'fail', evidence: 'no instance created yet: pool default has 1 GiB, needs 10 GiB' });
    expect(inspection.started).toEqual([]);
  });

  it('skips what needs a running domain when the domain is shut off', async () => {
    const { service, inspection } = setUp({ script: { domain: async () => ({ defined: true, state: 'shut off', running: false }) } });
    const diagnosis = await service.diagnose('p1');
    expect(step(diagnosis, 'domain')).toMatchObject({ status: 'fail', evidence: 'domain proxy-0123456789abcdef on host lab1 is shut off' });
    expect(statuses(diagnosis)).toMatchObject({ seed: 'skipped', 'cloud-init': 'skipped', agent: 'skipped', address: 'skipped' });
    expect(inspection.started).toEqual(['domain']);
    expect(inspection.closed).toBe(1);
  });

  it('asks the seed, the agent and ARP at once, and a hung agent reads unknown within its budget while ARP still answers', async () => {
    const never = new Promise<AddressAnswer>(() => undefined);
    const arpAnswer: AddressAnswer = { source: 'arp', addresses: ['10.0.0.6'], ip: '10.0.0.6' };
    const { service, inspection } = setUp({ console: cloudInitConsole, script: { agent: () => never, arp: async () => arpAnswer }, budgets: { guestMs: 100 } });
    const started = performance.now();
    const diagnosis = await service.diagnose('p1');
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(inspection.started.slice(1).sort()).toEqual(['agent', 'arp', 'seed']);
    expect(step(diagnosis, 'agent')).toMatchObject({ status: 'unknown', evidence: 'asking the guest agent: no answer within 100 ms' });
    expect(step(diagnosis, 'address')).toMatchObject({ status: 'pass', evidence: "10.0.0.6 from the host's ARP table" });
    expect(diagnosis.firstFailure).toBeNull();
  });

  it('gives up on a connection that takes longer than its budget, and closes it when it opens late', async () => {
    const late = new FakeInspection({});
    let open!: (inspection: InstanceInspection) => void;
    const opening = new Promise<InstanceInspection>((resolve) => (open = resolve));
    const { service } = setUp({ open: () => opening, budgets: { connectMs: 50 } });
    const diagnosis = await service.diagnose('p1');
    expect(step(diagnosis, 'host')).toMatchObject({
      status: 'fail',
      evidence: expect.stringContaining('could not connect to the host: no answer within 50 ms'),
    });
    open(late);
    await expect.poll(() => late.closed).toBe(1);
  });

  it('says what it cannot tell for a provider without instance inspection, and still checks the network', async () => {
    const { service, ports } = setUp({ inspector: false, view: proxyView({}, { ip: '10.0.0.5' }) });
    const diagnosis = await service.diagnose('p1');
    expect(step(diagnosis, 'domain')).toMatchObject({ status: 'unknown', evidence: 'provider type kvm2 cannot look at its instances' });
    expect(statuses(diagnosis)).toMatchObject({ host: 'pass', address: 'unknown', port: 'pass', probe: 'pass' });
    expect(ports).toEqual([{ host: '10.0.0.5', port: 3128 }]);
  });

  it('for a Static proxy: skips the VM steps and checks its spec address', async () => {
    const view = proxyView(
      { mode: 'Static', provider: undefined, placement: undefined, address: '192.0.2.10', instanceName: undefined },
      { providerID: undefined },
    );
    const { service, ports } = setUp({
      view,
      probe: { healthy: false, reason: 'BadStatus', message: 'the target answered HTTP 403 through the proxy', latencyMs: 3, statusCode: 403 },
    });
    const diagnosis = await service.diagnose('p1');
    expect(statuses(diagnosis)).toEqual({
      host: 'skipped',
      domain: 'skipped',
      seed: 'skipped',
      'cloud-init': 'skipped',
      agent: 'skipped',
      address: 'pass',
      port: 'pass',
      probe: 'fail',
      egress: 'skipped',
    });
    expect(step(diagnosis, 'probe')).toMatchObject({
      evidence: 'BadStatus: the target answered HTTP 403 through the proxy',
      next: expect.stringContaining('http_access'),
    });
    expect(ports).toEqual([{ host: '192.0.2.10', port: 3128 }]);
  });
});
