// A Proxy's conditions (Provisioned, Healthy), or a set's, like `kubectl describe`.
import type { Condition } from '@/lib/proxy-spec';
import { Badge } from '@/components/ui/badge';
import { formatTime } from '@/components/ui/format';
import { Table, Td } from '@/components/ui/table';

/** `goodWhenFalse`: condition types whose False is the healthy state (a set's ReplacementsExhausted). */
export function ConditionsTable({
  conditions,
  goodWhenFalse = [],
}: {
  conditions: Array<Omit<Condition, 'type'> & { type: string }>;
  goodWhenFalse?: string[];
}) {
  if (conditions.length === 0) return <p className="text-sm text-slate-600">No conditions yet: the reconciler has not looked at this Proxy.</p>;
  return (
    <Table label="Conditions" columns={['Type', 'Status', 'Reason', 'Message', 'Since']}>
      {conditions.map((condition) => (
        <tr key={condition.type}>
          <Td className="font-medium">{condition.type}</Td>
          <Td>
            <Badge
              tone={condition.status === 'Unknown' ? 'neutral' : (condition.status === 'True') !== goodWhenFalse.includes(condition.type) ? 'ok' : 'error'}
            >
              {condition.status}
            </Badge>
          </Td>
          <Td>{condition.reason}</Td>
          <Td className="min-w-64 whitespace-normal break-words">{condition.message || '—'}</Td>
          <Td>{formatTime(condition.lastTransitionTime)}</Td>
        </tr>
      ))}
    </Table>
  );
}
