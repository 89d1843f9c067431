'use client';
// The bar above the Proxies table when rows are selected: Delete the plain Proxies, Replace the set
// members (through each set's .../replace), each behind a confirmation that says what happens.
import { useState } from 'react';
import type { ProxyView } from '@/lib/proxy-spec';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { useReplaceMembers } from '@/components/proxysets/queries';
import { planBulk, summarise } from './bulk-plan';
import { useDeleteProxy } from './queries';
import { errorMessage } from '@/lib/error-message';

type Action = 'delete' | 'replace';

export function BulkActions({ selected, onDone }: { selected: ProxyView[]; onDone: () => void }) {
  const [open, setOpen] = useState<Action>();
  const [pending, setPending] = useState(false);
  const [outcome, setOutcome] = useState<string>();
  const remove = useDeleteProxy();
  const replace = useReplaceMembers();
  if (selected.length === 0 && !outcome) return null;
  const plan = planBulk(selected);
  const sets = [...plan.replaceable.keys()];

  async function run(action: Action) {
    setPending(true);
    const results: Array<{ name: string; error?: string }> = [];
    if (action === 'delete') {
      for (const name of plan.deletable)
        results.push(
          await remove.mutateAsync(name).then(
            () => ({ name }),
            (err: unknown) => ({ name, error: errorMessage(err) }),
          ),
        );
    } else {
      for (const [set, members] of plan.replaceable)
        results.push(
          await replace.mutateAsync({ set, members }).then(
            () => ({ name: `${set} (${members.length})` }),
            (err: unknown) => ({ name: set, error: errorMessage(err) }),
          ),
        );
    }
    setPending(false);
    setOpen(undefined);
    setOutcome(summarise(results, action === 'delete' ? 'deleted' : 'sets asked to replace their members'));
    onDone();
  }

  return (
    <div role="region" aria-label="Bulk actions" className="mb-3 flex flex-wrap items-center gap-3 rounded-md border border-blue-200 bg-blue-50 p-2 text-sm">
      {selected.length > 0 ? (
        <>
          <span className="font-medium text-slate-900">{selected.length} selected</span>
          <Button
            tone="danger"
            disabled={plan.deletable.length === 0}
            onClick={() => setOpen('delete')}
            title={plan.deletable.length === 0 ? 'Members of a set are deleted by scaling the set; use Replace' : undefined}
          >
            Delete {plan.deletable.length > 0 ? plan.deletable.length : ''}
          </Button>
          <Button
            disabled={plan.members === 0}
            onClick={() => setOpen('replace')}
            title={plan.members === 0 ? 'Replace is for members of a set; edit a plain Proxy to replace its VM' : undefined}
          >
            Replace {plan.members > 0 ? plan.members : ''}
          </Button>
          {plan.members > 0 && plan.deletable.length > 0 ? (
            <span className="text-xs text-slate-700">
              Delete applies to the {plan.deletable.length} plain Proxies, Replace to the {plan.members} set members.
            </span>
          ) : null}
        </>
      ) : null}
      {outcome ? (
        <p role="status" className="text-slate-800">
          {outcome}{' '}
          <button type="button" className="underline" onClick={() => setOutcome(undefined)}>
            Dismiss
          </button>
        </p>
      ) : null}
      <ConfirmDialog
        open={open === 'delete'}
        title={`Delete ${plan.deletable.length} Proxies?`}
        confirmLabel="Delete them"
        pending={pending}
        onClose={() => setOpen(undefined)}
        onConfirm={() => void run('delete')}
      >
        <p>
          This destroys the VMs of <strong className="break-all">{plan.deletable.join(', ')}</strong> with their disks (Static ones are only removed from the
          list). Crawler clients stop getting their addresses at once.
          {plan.members > 0 ? ` The ${plan.members} set members selected are left alone.` : ''}
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={open === 'replace'}
        title={`Replace ${plan.members} set members?`}
        confirmLabel="Replace them"
        pending={pending}
        onClose={() => setOpen(undefined)}
        onConfirm={() => void run('replace')}
      >
        <p>
          The selected members are deleted now and their set ({sets.join(', ')}) makes a new member in place of each (the members are down until their
          replacements are Ready; this does not count against the replacement budget).
          {plan.deletable.length > 0 ? ` The ${plan.deletable.length} plain Proxies selected are left alone.` : ''}
        </p>
      </ConfirmDialog>
    </div>
  );
}
