'use client';
// The Sets page body: per set how many members are wanted, Ready, updating (current template,
// still booting) and failing, its rollout and whether it stopped replacing; live.
import Link from 'next/link';
import type { ProxySetView } from '@/lib/api/proxysets';
import { Age } from '@/components/ui/age';
import { Badge } from '@/components/ui/badge';
import { LinkButton } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';
import { ErrorPanel } from '@/components/ui/error-panel';
import { SkeletonRows } from '@/components/ui/skeleton';
import { Table, Td } from '@/components/ui/table';
import { useProxySets } from './queries';

/** One word for where a set is: what the admin should look at first. */
export function setState(set: ProxySetView): { text: string; tone: 'ok' | 'warning' | 'error' | 'info' | 'neutral' } {
  if (set.deletionRequestedAt) return { text: 'Deleting', tone: 'neutral' };
  if (set.status.conditions.some((condition) => condition.type === 'ReplacementsExhausted' && condition.status === 'True'))
    return { text: 'Replacements exhausted', tone: 'error' };
  if (set.paused) return { text: 'Paused', tone: 'warning' };
  if (set.status.rollout.state === 'Progressing') return { text: `Rolling out ${set.status.rollout.updated}/${set.status.rollout.replicas}`, tone: 'info' };
  if (set.status.ready >= set.replicas) return { text: 'Ready', tone: 'ok' };
  return { text: 'Coming up', tone: 'warning' };
}

function SetRow({ set }: { set: ProxySetView }) {
  const state = setState(set);
  const { status } = set;
  return (
    <tr data-testid={`set-row-${set.name}`}>
      <Td>
        <Link href={`/sets/${encodeURIComponent(set.name)}`} className="font-medium text-blue-800 underline-offset-2 hover:underline">
          {set.name}
        </Link>
      </Td>
      <Td data-testid="set-desired">{set.replicas}</Td>
      <Td data-testid="set-ready">{status.ready}</Td>
      <Td data-testid="set-updating">{status.updating}</Td>
      <Td data-testid="set-failing" className={status.failing > 0 ? 'font-semibold text-red-800' : ''}>
        {status.failing}
      </Td>
      <Td>
        <Badge tone={state.tone}>{state.text}</Badge>
      </Td>
      <Td className="font-mono text-xs">{`${set.template.placement.machineType} · ${set.template.placement.image}`}</Td>
      <Td>
        <Age since={set.createdAt} />
      </Td>
    </tr>
  );
}

export function SetsTable() {
  const sets = useProxySets();
  if (sets.isPending) return <SkeletonRows rows={4} label="sets" />;
  if (sets.isError) return <ErrorPanel title="Could not load the sets" error={sets.error} onRetry={() => void sets.refetch()} />;
  if (sets.data.length === 0) {
    return (
      <EmptyState
        title="No sets yet"
        action={
          <LinkButton href="/sets/new" tone="primary">
            Create a set
          </LinkButton>
        }
      >
        A set keeps N Proxies made from one template, spread over your hosts, replacing those that fail and rolling changes to all of them.
      </EmptyState>
    );
  }
  return (
    <Table label="Sets" columns={['Name', 'Desired', 'Ready', 'Updating', 'Failing', 'State', 'Template', 'Age']}>
      {sets.data.map((set) => (
        <SetRow key={set.uid} set={set} />
      ))}
    </Table>
  );
}
