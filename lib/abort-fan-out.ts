// One signal handed to many concurrent calls (a loop's signal to every host of a round) would get
// one 'abort' listener per call: with more than 10 hosts Node prints MaxListenersExceededWarning,
// and a call that never settles keeps its listener on a signal that lives as long as the loop.
// AbortFanOut puts one listener on the shared signal and gives each call a child signal of its
// own, which aborts with the parent's reason.

export interface AbortChild {
  readonly signal: AbortSignal;
  /** The call is over: the parent's abort no longer reaches this child. */
  done(): void;
}

export class AbortFanOut {
  readonly #parent: AbortSignal | undefined;
  readonly #children = new Set<AbortController>();
  #closed = false;
  readonly #onAbort = () => {
    const reason: unknown = this.#parent?.reason;
    const children = [...this.#children];
    this.#children.clear();
    for (const child of children) child.abort(reason);
  };

  constructor(parent: AbortSignal | undefined) {
    this.#parent = parent;
    if (parent && !parent.aborted) parent.addEventListener('abort', this.#onAbort, { once: true });
  }

  child(): AbortChild {
    const controller = new AbortController();
    if (this.#parent?.aborted) controller.abort(this.#parent.reason);
    else if (this.#parent) this.#children.add(controller);
    return {
      signal: controller.signal,
      done: () => {
        this.#children.delete(controller);
        this.#letGoWhenIdle();
      },
    };
  }

  /** No more children; the parent's listener goes once the last running one is done. */
  close(): void {
    this.#closed = true;
    this.#letGoWhenIdle();
  }

  #letGoWhenIdle(): void {
    if (this.#closed && this.#children.size === 0) this.#parent?.removeEventListener('abort', this.#onAbort);
  }
}
