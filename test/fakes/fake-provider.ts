// An in-memory provider for control-plane tests: instances in a Map (optionally persisted to a
// JSON file, written atomically, so they survive a SIGKILL of the process), scripted errors or
// hangs per method, and a log of every call. It follows the contract the way kvm2 does: Create is
// idempotent by name and adopts an instance with the same uid, refuses one with another uid;
// Delete of a missing instance succeeds; Get of a missing one is ErrNotFound.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type {
  CallOptions,
  CreateRequest,
  Instance,
  InstanceChange,
  InstanceState,
  InstanceWatch,
  InstanceWatcher,
  Provider,
  Target,
} from '@/server/providers/contract';
import { ErrNotFound, ErrPermanent, ErrTransient } from '@/server/providers/errors';
import { ConsoleBusyError as ProviderConsoleBusyError, type InstanceConsole } from '@/server/providers/instance-console';
import { ConsoleBusyError } from '@/server/libvirt';
import { FakeConsoles } from './fake-console';

export type FakeMethod = 'create' | 'get' | 'delete' | 'listByTag' | 'check';

export interface FakeInstance extends Instance {
  /** false for an instance another tool made: ListByTag does not return it */
  managed: boolean;
  /** what the instance was created from, so tests can compare it with the spec */
  placement?: CreateRequest['placement'];
  port?: number;
  cloudInitBytes?: number;
  /** epoch ms when it was created; with bootMs, Get reports Running only after booting */
  createdAtMs: number;
}

export interface FakeCall {
  method: FakeMethod;
  /** the instance name (create) or providerID (get, delete) */
  subject?: string;
}

type Script = { kind: 'error'; error: Error } | { kind: 'hang' };

export interface FakeProviderOptions {
  name: string;
  type?: string;
  /** persist instances to this file after every change and load them at construction */
  stateFile?: string;
  /** several processes share stateFile (replicas): read it again before every call */
  sharedState?: boolean;
  /** ms Create waits after its side effect (the instance exists) before it returns */
  createDelayMs?: number;
  /** ms after creation before Get reports Running; 0 means Running at once */
  bootMs?: number;
  /** state a fresh instance reports when bootMs is 0 */
  initialState?: InstanceState;
  targets?: Target[];
}

const ipFor = (name: string): string => {
  let sum = 0;
  for (const char of name) sum = (sum * 31 + char.charCodeAt(0)) % 250;
  return `198.51.100.${sum + 2}`;
};

function abortable(signal: AbortSignal | undefined, ms: number | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new ErrTransient('call abandoned', { cause: signal.reason }));
    const timer = ms === undefined ? undefined : setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(new ErrTransient('call abandoned', { cause: signal.reason }));
      },
      { once: true },
    );
  });
}

export class FakeProvider implements Provider {
  readonly name: string;
  readonly type: string;
  readonly calls: FakeCall[] = [];
  readonly instances = new Map<string, FakeInstance>();
  targets: Target[];
  closed = false;
  /** the watchers of watchInstances not stopped yet */
  readonly watchers = new Set<InstanceWatcher>();
  /** each instance's serial console, by providerID */
  readonly consoles = new FakeConsoles();
  /** the console capability over `consoles`: busy while held elsewhere, force takes it */
  readonly console: InstanceConsole = {
    open: async (providerID, options = {}) => {
      if (!this.instances.has(providerID)) throw new ErrNotFound(`instance ${providerID} not found`);
      let stream;
      try {
        stream = this.consoles.of(providerID).open(options.force === true);
      } catch (err) {
        if (err instanceof ConsoleBusyError) throw new ProviderConsoleBusyError('host-a', providerID, { cause: err });
        throw err;
      }
      return { output: stream.output, send: (data) => stream.send(data), close: () => stream.finish() };
    },
  };
  private readonly scripts = new Map<FakeMethod, Script[]>();
  private readonly always = new Map<FakeMethod, Error>();

  constructor(private readonly options: FakeProviderOptions) {
    this.name = options.name;
    this.type = options.type ?? 'fake';
    this.targets = options.targets ?? [{ name: 'host-a', ready: true, reason: 'Reachable', message: '', details: {}, latencyMs: 1, checkedAt: '' }];
    if (options.stateFile) this.load(options.stateFile);
  }

  /** The next call of `method` (or the next `times` calls) fails with the error. */
  failNext(method: FakeMethod, failure: Error | { error: Error; times: number }): this {
    const { error, times } = failure instanceof Error ? { error: failure, times: 1 } : failure;
    const queue = this.scripts.get(method) ?? [];
    for (let i = 0; i < times; i++) queue.push({ kind: 'error', error });
    this.scripts.set(method, queue);
    return this;
  }

  /** Every call of `method` fails with `error` until cleared (undefined clears). */
  failAlways(method: FakeMethod, error: Error | undefined): this {
    if (error) this.always.set(method, error);
    else this.always.delete(method);
    return this;
  }

  /** The next call of `method` never answers; it ends only when its signal aborts. */
  hangNext(method: FakeMethod): this {
    const queue = this.scripts.get(method) ?? [];
    queue.push({ kind: 'hang' });
    this.scripts.set(method, queue);
    return this;
  }

  callsOf(method: FakeMethod): FakeCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  setState(providerID: string, state: InstanceState): void {
    const instance = this.instances.get(providerID);
    if (!instance) throw new Error(`no fake instance ${providerID}`);
    instance.state = state;
    this.save();
  }

  /** Adds an instance directly (foreign, unmarked, or left by an earlier run). */
  put(instance: Omit<FakeInstance, 'createdAtMs'> & { createdAtMs?: number }): void {
    this.instances.set(instance.providerID, { createdAtMs: Date.now(), ...instance });
    this.save();
  }

  remove(providerID: string): void {
    this.instances.delete(providerID);
    this.save();
  }

  async create(request: CreateRequest, options?: CallOptions): Promise<Instance> {
    await this.enter('create', request.name, options);
    const providerID = `fake/${request.name}`;
    const existing = this.instances.get(providerID);
    if (existing && existing.uid && existing.uid !== request.uid) {
      throw new ErrPermanent(`instance ${request.name} belongs to uid ${existing.uid}, not ${request.uid}`);
    }
    const started = !existing || existing.state === 'Stopped';
    if (!existing) {
      this.instances.set(providerID, {
        providerID,
        name: request.name,
        uid: request.uid,
        managed: true,
        state: this.options.bootMs ? 'Provisioning' : (this.options.initialState ?? 'Running'),
        ip: ipFor(request.name),
        placement: request.placement,
        port: request.port,
        cloudInitBytes: typeof request.cloudInit === 'string' ? Buffer.byteLength(request.cloudInit) : request.cloudInit.length,
        created: new Date().toISOString(),
        createdAtMs: Date.now(),
      });
    } else if (existing.state === 'Stopped') {
      existing.state = 'Running';
    }
    this.save();
    if (started) request.onStarted?.(providerID);
    if (this.options.createDelayMs) await abortable(options?.signal, this.options.createDelayMs);
    return this.view(this.instances.get(providerID) as FakeInstance);
  }

  async get(providerID: string, options?: CallOptions): Promise<Instance> {
    await this.enter('get', providerID, options);
    const instance = this.instances.get(providerID);
    if (!instance) throw new ErrNotFound(`instance ${providerID} not found`);
    return this.view(instance);
  }

  async delete(providerID: string, options?: CallOptions): Promise<void> {
    await this.enter('delete', providerID, options);
    this.instances.delete(providerID);
    this.save();
  }

  async listByTag(_tag: string, options?: CallOptions): Promise<Instance[]> {
    await this.enter('listByTag', undefined, options);
    return [...this.instances.values()].filter((instance) => instance.managed).map((instance) => this.view(instance));
  }

  async check(options?: CallOptions): Promise<Target[]> {
    await this.enter('check', undefined, options);
    const checkedAt = new Date().toISOString();
    return this.targets.map((target) => ({ ...target, details: { ...target.details }, checkedAt }));
  }

  watchInstances(watcher: InstanceWatcher): InstanceWatch {
    this.watchers.add(watcher);
    return { stop: async () => void this.watchers.delete(watcher) };
  }

  /** Tells every watcher about a change to the instance (of this provider's naming: `fake/<name>`). */
  emitChange(name: string, event: string, target = 'host-a'): void {
    const change: InstanceChange = { providerID: `fake/${name}`, name, target, event };
    for (const watcher of this.watchers) watcher.changed(change);
  }

  emitMissed(target = 'host-a'): void {
    for (const watcher of this.watchers) watcher.missed?.(target);
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private async enter(method: FakeMethod, subject: string | undefined, options?: CallOptions): Promise<void> {
    this.calls.push({ method, ...(subject ? { subject } : {}) });
    if (this.options.sharedState && this.options.stateFile) {
      this.instances.clear();
      this.load(this.options.stateFile);
    }
    if (this.closed) throw new ErrTransient(`provider ${this.name} is closed`);
    if (options?.signal?.aborted) throw new ErrTransient('call abandoned', { cause: options.signal.reason });
    const fixed = this.always.get(method);
    if (fixed) throw fixed;
    const script = this.scripts.get(method)?.shift();
    if (script?.kind === 'error') throw script.error;
    if (script?.kind === 'hang') await abortable(options?.signal, undefined);
  }

  private view(instance: FakeInstance): Instance {
    const booting = this.options.bootMs !== undefined && instance.state === 'Provisioning' && Date.now() - instance.createdAtMs < this.options.bootMs;
    const state = this.options.bootMs && instance.state === 'Provisioning' && !booting ? 'Running' : instance.state;
    const { providerID, name, uid, ip, created, detail } = instance;
    return {
      providerID,
      // the fake's one target, unless the instance was placed by zone
      host: instance.placement?.zone ?? 'host-a',
      name,
      state,
      ...(uid !== undefined ? { uid } : {}),
      ...(state === 'Running' && ip ? { ip } : {}),
      ...(created ? { created } : {}),
      ...(state === 'Paused' && detail ? { detail } : {}),
    };
  }

  private load(file: string): void {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return;
    }
    for (const instance of JSON.parse(text) as FakeInstance[]) this.instances.set(instance.providerID, instance);
  }

  private save(): void {
    const file = this.options.stateFile;
    if (!file) return;
    // Write and rename: a kill mid-write leaves the previous file, never half of one.
    writeFileSync(`${file}.tmp`, JSON.stringify([...this.instances.values()]));
    renameSync(`${file}.tmp`, file);
  }
}
