// Every storage pool on a host: state, and capacity / allocation / available as a bar.
import { Badge } from '@/components/ui/badge';
import { formatBytes } from '@/components/ui/format';
import { Table, Td } from '@/components/ui/table';
import { UsageBar } from '@/components/ui/usage-bar';
import type { PoolView } from './queries';

export function PoolsTable({ pools }: { pools: PoolView[] }) {
  if (pools.length === 0) return <p className="text-sm text-slate-600">libvirt reports no storage pools on this host.</p>;
  return (
    <Table label="Storage pools" columns={['Pool', 'State', 'Capacity', 'Allocation', 'Available', { title: 'Usage', className: 'w-64' }]}>
      {pools.map((pool) => (
        <tr key={pool.name} data-testid={`pool-row-${pool.name}`}>
          <Td>
            <span className="font-medium">{pool.name}</span>
            {pool.configured ? <span className="ml-2 text-xs text-slate-600">(used for Proxies)</span> : null}
          </Td>
          <Td>
            <Badge tone={pool.state === 'running' ? 'ok' : 'warning'}>{pool.state}</Badge>
          </Td>
          <Td>{formatBytes(pool.capacityBytes)}</Td>
          <Td>{formatBytes(pool.allocationBytes)}</Td>
          <Td>{formatBytes(pool.availableBytes)}</Td>
          <Td className="min-w-48">
            {pool.capacityBytes > 0 ? (
              <UsageBar
                label={`Pool ${pool.name} usage`}
                used={pool.capacityBytes - pool.availableBytes}
                total={pool.capacityBytes}
                text={`${formatBytes(pool.availableBytes)} free`}
              />
            ) : (
              <span className="text-xs text-slate-600">not reported while inactive</span>
            )}
          </Td>
        </tr>
      ))}
    </Table>
  );
}
