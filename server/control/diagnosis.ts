// Why isn't my Proxy Ready? An on-demand, read-only checklist from the host to the egress IP
// (diagnosis-steps.ts holds each step's verdict). Independent facts are gathered at once, each
// within its own time budget, so the whole runs in a few seconds at worst; a step whose
// prerequisite did not pass is skipped. It changes nothing: the provider's instance inspection
// only reads, the port check connects and closes, the probe is the health probe's own request.
import { type Diagnosis, type DiagnosisStep, type DiagnosisStepId, diagnosisStepIds } from '@/lib/api/diagnosis';
import type { ProxyView } from '@/lib/proxy-spec';
import type { Provider, Target } from '@/server/providers/contract';
import type { AddressAnswer, InstanceInspection } from '@/server/providers/instance-inspection';
import { type Clock, isoTime } from './clock';
import {
  addressVerdict,
  agentVerdict,
  cloudInitVerdict,
  domainVerdict,
  egressVerdict,
  type Gathered,
  hostVerdict,
  portVerdict,
  probeVerdict,
  seedVerdict,
  skipped,
  stepTitles,
  type Verdict,
} from './diagnosis-steps';
import { errorMessage } from '@/lib/error-message';
import type { PortCheck } from './port-check';
import type { ProbeRequest, ProbeResult } from './probe';

/** Time budget of each gathering call, in ms. */
export const diagnosisBudgets = {
  /** the SSH and libvirt handshakes of the diagnosis's own connection */
  connectMs: 3_000,
  /** the domain's lookup and state */
  domainMs: 1_500,
  /** the seed, the guest agent, the ARP table (at once) */
  guestMs: 2_000,
  portMs: 1_500,
  /** the probe through the proxy and the IP-echo request (at most PROBE_TIMEOUT) */
  probeMs: 3_000,
} as const;

export type DiagnosisBudgets = { readonly [K in keyof typeof diagnosisBudgets]: number };

/** A provider entry's state and its latest health targets. */
export interface ProviderState {
  available: boolean;
  reason?: string;
  targets: Target[];
}

export interface DiagnosisProviders {
  /** the running provider of that name */
  get(name: string): Provider | undefined;
  /** the entry's state and its latest health targets; undefined when it is not configured */
  summary(name: string): ProviderState | undefined | Promise<ProviderState | undefined>;
}

export interface DiagnosisOptions {
  /** the Proxy as the API shows it (from the store) */
  proxy: (name: string) => ProxyView | Promise<ProxyView>;
  providers: DiagnosisProviders;
  /** the VM's serial console text so far (the console capture), or undefined when none is kept */
  consoleLog: (proxyName: string) => string | undefined;
  probe: (request: ProbeRequest) => Promise<ProbeResult>;
  portCheck: PortCheck;
  probeUrl?: string;
  ipEchoUrl?: string;
  probeTimeoutMs: number;
  clock: Clock;
  budgets?: DiagnosisBudgets;
}

class BudgetExceededError extends Error {
  readonly code = 'ERR_DIAGNOSIS_BUDGET';
  constructor(budgetMs: number) {
    super(`no answer within ${budgetMs} ms`);
    this.name = 'BudgetExceededError';
  }
}

/** Runs `work` within `budgetMs`: its signal fires and the result is an error when time is up. */
export async function gather<T>(budgetMs: number, work: (signal: AbortSignal) => Promise<T>): Promise<Gathered<T>> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const err = new BudgetExceededError(budgetMs);
      controller.abort(err);
      reject(err);
    }, budgetMs);
  });
  try {
    return { kind: 'value', value: await Promise.race([work(controller.signal), expired]) };
  } catch (err) {
    return { kind: 'error', message: errorMessage(err), timedOut: err instanceof BudgetExceededError };
  } finally {
    clearTimeout(timer);
  }
}

type StepResult = Verdict & { ms: number };

/** Times a step's verdict from when `startedAt` (performance.now()) was taken. */
const timed = (verdict: Verdict, startedAt: number): StepResult => ({ ...verdict, ms: performance.now() - startedAt });

const needs = (id: DiagnosisStepId): Verdict => skipped(`needs "${stepTitles[id]}" to pass`);

function waitingOn(view: ProxyView): string | undefined {
  const provisioned = view.status.conditions.find((condition) => condition.type === 'Provisioned');
  return view.status.lastError?.message ?? (provisioned && provisioned.status !== 'True' ? provisioned.message : undefined);
}

/** The host the Proxy's instance is on, as far as its record says. */
function hostOf(view: ProxyView): string | undefined {
  return view.status.host ?? view.status.chosenPlacement?.zone ?? view.placement?.zone;
}

export class DiagnosisService {
  private readonly budgets: DiagnosisBudgets;

  constructor(private readonly options: DiagnosisOptions) {
    this.budgets = options.budgets ?? diagnosisBudgets;
  }

  async diagnose(name: string): Promise<Diagnosis> {
    const view = await this.options.proxy(name);
    const startedAt = isoTime(this.options.clock);
    const started = performance.now();
    const results = view.mode === 'Managed' ? await this.managed(view) : await this.static(view);
    const steps: DiagnosisStep[] = diagnosisStepIds.map((id) => {
      const { ms, ...verdict } = results[id];
      return { id, title: stepTitles[id], ...verdict, durationMs: Math.round(ms) };
    });
    return {
      proxy: view.name,
      startedAt,
      durationMs: Math.round(performance.now() - started),
      steps,
      firstFailure: steps.find((step) => step.status === 'fail')?.id ?? null,
    };
  }

  private async static(view: ProxyView): Promise<Record<DiagnosisStepId, StepResult>> {
    const now = performance.now();
    const notManaged = timed(skipped('a Static proxy: no VM of ours to look at'), now);
    const address = view.address ? timed({ status: 'pass', evidence: `${view.address} from the Proxy's spec` }, now) : timed(needs('address'), now);
    return {
      host: notManaged,
      domain: notManaged,
      seed: notManaged,
      'cloud-init': notManaged,
      agent: notManaged,
      address,
      ...(await this.network(view, view.address)),
    };
  }

  private async managed(view: ProxyView): Promise<Record<DiagnosisStepId, StepResult>> {
    const { budgets } = this;
    const providerName = view.provider ?? '';
    const provider = this.options.providers.get(providerName);
    const summary = await this.options.providers.summary(providerName);
    const providerID = view.status.providerID;
    const started = performance.now();
    const inspector = provider?.inspector;
    const connection =
      inspector && providerID
        ? await gather(budgets.connectMs, (signal) => {
            const opening = inspector.open(providerID, { signal });
            // A connection that opens after the budget ran out is closed, not leaked.
            signal.addEventListener('abort', () => void opening.then((late) => late.close()).catch(() => undefined), { once: true });
            return opening;
          })
        : undefined;
    const inspection = connection?.kind === 'value' ? connection.value : undefined;
    try {
      const hostName = inspection?.host ?? hostOf(view);
      const targets = summary?.targets ?? [];
      const target = targets.find((candidate) => candidate.name === hostName) ?? (targets.length === 1 ? targets[0] : undefined);
      const connected: Gathered<{ host: string; ms: number }> | undefined =
        connection?.kind === 'value' ? { kind: 'value', value: { host: connection.value.host, ms: performance.now() - started } } : connection;
      const host = timed(
        hostVerdict({ provider: providerName, running: provider !== undefined, providerReason: summary?.reason, target, connection: connected }),
        started,
      );
      const rest = await this.instanceSteps({ view, provider, inspection, hostReachable: connection?.kind !== 'error' && provider !== undefined });
      return { host, ...rest };
    } finally {
      await inspection?.close();
    }
  }

  private async instanceSteps(input: {
    view: ProxyView;
    provider: Provider | undefined;
    inspection: InstanceInspection | undefined;
    hostReachable: boolean;
  }): Promise<Omit<Record<DiagnosisStepId, StepResult>, 'host'>> {
    const { view, provider, inspection } = input;
    const { budgets } = this;
    const domainStarted = performance.now();
    if (!input.hostReachable) {
      const now = performance.now();
      const skip = timed(needs('host'), now);
      return { domain: skip, seed: skip, 'cloud-init': skip, agent: skip, ...(await this.addressAndNetwork(view, undefined)) };
    }
    const facts = inspection ? await gather(budgets.domainMs, (signal) => inspection.domainFacts({ signal })) : undefined;
    const domain = timed(
      domainVerdict({
        recorded: view.status.providerID !== undefined,
        waitingOn: waitingOn(view),
        facts,
        domain: inspection?.domain ?? view.instanceName,
        host: inspection?.host,
        providerType: provider?.type ?? 'unknown',
      }),
      domainStarted,
    );
    const running = facts?.kind === 'value' && facts.value.running;
    if (domain.status !== 'pass' || !running || !inspection) {
      const now = performance.now();
      const skip = timed(domain.status === 'unknown' ? skipped('the domain could not be read') : needs('domain'), now);
      return { domain, seed: skip, 'cloud-init': skip, agent: skip, ...(await this.addressAndNetwork(view, undefined)) };
    }
    const guestStarted = performance.now();
    const cloudInit = timed(cloudInitVerdict(this.options.consoleLog(view.name), inspection.domain), guestStarted);
    const [seedFacts, agent, arp] = await Promise.all([
      gather(budgets.guestMs, (signal) => inspection.seed({ signal })),
      gather(budgets.guestMs, (signal) => inspection.addresses('agent', { signal })),
      gather(budgets.guestMs, (signal) => inspection.addresses('arp', { signal })),
    ]);
    return {
      domain,
      seed: timed(seedVerdict(seedFacts), guestStarted),
      'cloud-init': cloudInit,
      agent: timed(agentVerdict(agent), guestStarted),
      ...(await this.addressAndNetwork(view, { agent, arp, started: guestStarted })),
    };
  }

  /** The address step from the sources' answers (none when the domain could not be asked), then the network steps. */
  private async addressAndNetwork(
    view: ProxyView,
    answers: { agent: Gathered<AddressAnswer>; arp: Gathered<AddressAnswer>; started: number } | undefined,
  ): Promise<Pick<Record<DiagnosisStepId, StepResult>, 'address' | 'port' | 'probe' | 'egress'>> {
    if (!answers) {
      const now = performance.now();
      const recorded = view.status.ip;
      const address = recorded
        ? timed({ status: 'unknown', evidence: `the Proxy's status says ${recorded}, which the host could not confirm`, next: 'Look at the steps above.' }, now)
        : timed(needs('domain'), now);
      return { address, ...(await this.network(view, recorded)) };
    }
    const verdict = addressVerdict({ agent: answers.agent, arp: answers.arp, recorded: view.status.ip });
    const { ip, ...address } = verdict;
    return { address: timed(address, answers.started), ...(await this.network(view, ip)) };
  }

  /** Port, probe and egress against `ip` (skipped without one). */
  private async network(view: ProxyView, ip: string | undefined): Promise<Pick<Record<DiagnosisStepId, StepResult>, 'port' | 'probe' | 'egress'>> {
    const { budgets, options } = this;
    const portStarted = performance.now();
    const egressSkip = (because: Verdict) => (options.ipEchoUrl ? because : skipped('no IP_ECHO_URL set'));
    if (!ip) {
      const skip = timed(needs('address'), portStarted);
      return { port: skip, probe: timed(needs('port'), portStarted), egress: timed(egressSkip(needs('probe')), portStarted) };
    }
    const target = { host: ip, port: view.port };
    const portResult = await options.portCheck({ ...target, timeoutMs: budgets.portMs });
    const port = timed(portVerdict(target, portResult), portStarted);
    if (port.status !== 'pass') {
      const now = performance.now();
      return { port, probe: timed(needs('port'), now), egress: timed(egressSkip(needs('probe')), now) };
    }
    const probeStarted = performance.now();
    const result = await options.probe({
      ...target,
      targetUrl: options.probeUrl,
      ipEchoUrl: options.ipEchoUrl,
      timeoutMs: Math.min(options.probeTimeoutMs, budgets.probeMs),
    });
    const probe = timed(probeVerdict(result, { probeUrl: options.probeUrl }), probeStarted);
    const egress = timed(egressSkip(probe.status === 'pass' ? egressVerdict(result) : needs('probe')), probeStarted);
    return { port, probe, egress };
  }
}
