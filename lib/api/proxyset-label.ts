// The label every ProxySet member carries, `proxyset=<set>`, on its own: the Proxies table and its
// bulk actions need only this name, not the set spec's schemas (proxyset-spec.ts) in their bundle.
export const proxySetLabel = 'proxyset';
