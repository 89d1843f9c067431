'use client';
// The set page's actions: Edit, Pause/Resume (a rollout, and the replacing), Delete (with its members).
import type { ProxySetView } from '@/lib/api/proxysets';
import { Button, LinkButton } from '@/components/ui/button';
import { DeleteButton } from '@/components/ui/delete-button';
import { useDeleteProxySet, usePauseProxySet } from './queries';

export function SetActions({ set }: { set: ProxySetView }) {
  const pause = usePauseProxySet(set.name);
  const remove = useDeleteProxySet(set.name);
  const deleting = set.deletionRequestedAt !== undefined;
  return (
    <>
      <LinkButton href={`/sets/${encodeURIComponent(set.name)}/edit`}>Edit</LinkButton>
      <Button disabled={deleting || pause.isPending} onClick={() => pause.mutate(!set.paused)}>
        {set.paused ? 'Resume' : 'Pause'}
      </Button>
      <DeleteButton
        deleting={deleting}
        title={`Delete the set ${set.name}?`}
        confirmLabel="Delete set and members"
        mutation={remove}
        remove={() => remove.mutateAsync(undefined)}
        leaveTo="/sets"
      >
        <p>
          This deletes all {set.status.members} members of {set.name} (their VMs and disks), then the set. Crawler clients stop getting their addresses at once.
        </p>
      </DeleteButton>
      {pause.error ? (
        <p role="alert" className="w-full text-sm text-red-700">
          {pause.error.message}
        </p>
      ) : null}
    </>
  );
}
