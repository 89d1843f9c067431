// The providers as the leader's loops see them: every call first asks whether this replica still
// leads. A replica that was frozen (SIGSTOP, a VM paused, a long GC pause) may wake up to timers
// that fire before anything tells it that its lease ran out; this check steps it down on its first
// hypervisor call instead, so it touches no hypervisor after another replica may have taken over.
import type { Provider } from '@/server/providers/contract';
import { ErrTransient } from '@/server/providers/errors';
import type { ProviderLookup } from '@/server/control/provider-set';

export class NotLeaderError extends ErrTransient {
  constructor() {
    super('this replica no longer leads: the call was not made');
  }
}

export class FencedProviders implements ProviderLookup {
  private readonly wrapped = new WeakMap<object, object>();

  constructor(
    private readonly inner: ProviderLookup,
    /** true while this replica may touch hypervisors; steps down itself when not */
    private readonly mayAct: () => boolean,
  ) {}

  get(name: string): Provider | undefined {
    const provider = this.inner.get(name);
    return provider && this.fence(provider);
  }

  list(): Provider[] {
    return this.inner.list().map((provider) => this.fence(provider));
  }

  unavailableReason(name: string): string | undefined {
    return this.inner.unavailableReason(name);
  }

  version(): string {
    return this.inner.version();
  }

  /** `target` with every method (its capabilities' too) checking the lease first. */
  private fence<T extends object>(target: T): T {
    const known = this.wrapped.get(target);
    if (known) return known as T;
    const fenced = new Proxy(target, {
      get: (object, key, receiver) => {
        const value: unknown = Reflect.get(object, key, receiver);
        if (typeof value === 'function') {
          return (...args: unknown[]) => {
            if (!this.mayAct()) throw new NotLeaderError();
            return (value as (...a: unknown[]) => unknown).apply(object, args);
          };
        }
        return value !== null && typeof value === 'object' ? this.fence(value) : value;
      },
    });
    this.wrapped.set(target, fenced);
    return fenced;
  }
}
