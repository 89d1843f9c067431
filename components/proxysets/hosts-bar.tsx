// Members per host as one horizontal bar (a segment per host, its width the host's share), with a
// legend giving each host's members and Ready ones: the set's spread at a glance. Also shows the
// create form's preview of where members would go.
const palette = ['bg-blue-600', 'bg-emerald-600', 'bg-amber-500', 'bg-violet-600', 'bg-rose-600', 'bg-cyan-600', 'bg-lime-600', 'bg-orange-600'];

export interface HostShare {
  host: string;
  members: number;
  /** Ready members; left out for a preview */
  ready?: number;
  /** why a preview's host gets nothing */
  note?: string;
}

const hostName = (host: string): string => host || 'chosen by the provider';

export function HostsBar({ label, hosts }: { label: string; hosts: HostShare[] }) {
  const total = hosts.reduce((sum, host) => sum + host.members, 0);
  const text = hosts
    .filter((host) => host.members > 0)
    .map((host) => `${hostName(host.host)}: ${host.members}${host.ready === undefined ? '' : ` (${host.ready} Ready)`}`)
    .join(', ');
  return (
    <div>
      <div role="img" aria-label={`${label}: ${text || 'no members'}`} className="flex h-4 w-full overflow-hidden rounded-full bg-slate-200">
        {hosts.map((host, index) =>
          host.members > 0 ? (
            <div
              key={host.host}
              className={palette[index % palette.length]}
              style={{ width: `${((host.members / total) * 100).toFixed(2)}%` }}
              title={`${hostName(host.host)}: ${host.members}`}
            />
          ) : null,
        )}
      </div>
      <ul className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-sm text-slate-800" data-testid="hosts-legend">
        {hosts.map((host, index) => (
          <li key={host.host} data-testid={`host-share-${host.host}`} className="flex items-center gap-1.5">
            <span aria-hidden="true" className={`inline-block h-2.5 w-2.5 rounded-full ${palette[index % palette.length]}`} />
            <span className="font-medium">{hostName(host.host)}</span>
            <span>
              {host.members} {host.members === 1 ? 'member' : 'members'}
              {host.ready === undefined ? '' : `, ${host.ready} Ready`}
            </span>
            {host.note ? <span className="text-xs text-slate-600">({host.note})</span> : null}
          </li>
        ))}
      </ul>
    </div>
  );
}
