// The gateway's last refusals, newest first: when, which crawler address, why (in words and the
// code), and the sentence the crawler got in X-Gateway-Error. Presentational.
import type { GatewayRefusal } from '@/lib/api/gateway';
import { formatTime } from '@/components/ui/format';
import { Table, Td } from '@/components/ui/table';
import { refusalCause } from './traffic-model';

export function RefusalsTable({ refusals }: { refusals: GatewayRefusal[] }) {
  if (refusals.length === 0) return <p className="text-sm text-slate-600">No refusals: every connection so far had a valid token and found a proxy.</p>;
  return (
    <Table label="Last refusals" columns={['When', 'Client', 'Reason', 'What the crawler was told']}>
      {refusals.map((refusal, index) => (
        <tr key={`${refusal.at}-${index}`}>
          <Td>{formatTime(refusal.at)}</Td>
          <Td className="font-mono text-xs">{refusal.client}</Td>
          <Td>
            {refusalCause(refusal.cause)} <span className="font-mono text-xs text-slate-600">({refusal.cause})</span>
          </Td>
          {/* Td keeps its text on one line; the sentence wraps. */}
          <td className="min-w-64 break-words px-3 py-2 text-slate-900">{refusal.message}</td>
        </tr>
      ))}
    </Table>
  );
}
