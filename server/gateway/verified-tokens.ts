// Gateway tokens verified in the last `ttlMs`, so a crawler opening hundreds of connections a second
// costs one store lookup and one hash per token a second, not one per connection (the lookup was
// 0.2 ms of the latency the gateway adds to each request; bench:gateway). Only successes are kept: a
// wrong token is checked, and counted by the rate limit, every time. The price: a revoked token
// still passes on a replica for at most `ttlMs` after it was last checked there.
export interface VerifiedTokensOptions<T> {
  verify: (token: string) => Promise<T | undefined>;
  ttlMs: number;
  now: () => number;
  /** tokens remembered at once; a crawler fleet uses a handful */
  maxEntries?: number;
}

export class VerifiedTokens<T> {
  private readonly entries = new Map<string, { identity: T; untilMs: number }>();

  constructor(private readonly options: VerifiedTokensOptions<T>) {}

  async verify(token: string): Promise<T | undefined> {
    const nowMs = this.options.now();
    const known = this.entries.get(token);
    if (known && known.untilMs > nowMs) return known.identity;
    this.entries.delete(token);
    const identity = await this.options.verify(token);
    if (identity !== undefined) {
      this.makeRoom(nowMs);
      this.entries.set(token, { identity, untilMs: nowMs + this.options.ttlMs });
    }
    return identity;
  }

  private makeRoom(nowMs: number): void {
    const full = () => this.entries.size >= (this.options.maxEntries ?? 1_024);
    if (!full()) return;
    for (const [token, entry] of this.entries) if (entry.untilMs <= nowMs) this.entries.delete(token);
    if (full()) this.entries.clear();
  }
}
