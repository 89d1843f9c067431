// Rotation for connections without a session: the eligible proxy with the fewest open tunnels;
// among equals, round-robin. The open-tunnel counts are the server's (its accounting already
// counts them per Proxy, opened and closed with each connection), passed in as a lookup, so there
// is one count and it cannot drift from the one the metrics show. This class keeps only the
// round-robin cursor: the name of the last proxy it gave. The next tie goes to the first name after
// it in name order, wrapping, which stays fair while the pool changes under it (a proxy added,
// one gone) where an index into the list would skip or repeat. One instance per gateway server;
// counts and cursor are this replica's own, and need not agree across replicas.

export interface RotationPick {
  /** names of the eligible proxies (Ready, not excluded), in any order */
  candidates: readonly string[];
  /** open tunnels through `proxy` now */
  openTunnels: (proxy: string) => number;
}

export class TunnelRotation {
  private last: string | undefined;

  /** The proxy for the next connection; undefined when there is no candidate. */
  pick(options: RotationPick): string | undefined {
    let fewest = Infinity;
    let tied: string[] = [];
    for (const name of options.candidates) {
      const open = options.openTunnels(name);
      if (open < fewest) {
        fewest = open;
        tied = [name];
      } else if (open === fewest) {
        tied.push(name);
      }
    }
    if (tied.length === 0) return undefined;
    const last = this.last;
    let next: string | undefined;
    let first: string | undefined;
    for (const name of tied) {
      if (first === undefined || name < first) first = name;
      if (last !== undefined && name > last && (next === undefined || name < next)) next = name;
    }
    this.last = next ?? first;
    return this.last;
  }
}
