'use client';
// The set page's actions: Edit, Pause/Resume (a rollout, and the replacing), Delete (with its members).
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import type { ProxySetView } from '@/lib/api/proxysets';
import { Button, LinkButton } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { useDeleteProxySet, usePauseProxySet } from './queries';

export function SetActions({ set }: { set: ProxySetView }) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const pause = usePauseProxySet(set.name);
  const remove = useDeleteProxySet(set.name);
  const deleting = set.deletionRequestedAt !== undefined;
  return (
    <>
      <LinkButton href={`/sets/${encodeURIComponent(set.name)}/edit`}>Edit</LinkButton>
      <Button disabled={deleting || pause.isPending} onClick={() => pause.mutate(!set.paused)}>
        {set.paused ? 'Resume' : 'Pause'}
      </Button>
      <Button
        tone="danger"
        disabled={deleting}
        onClick={() => {
          remove.reset();
          setOpen(true);
        }}
      >
        {deleting ? 'Deleting…' : 'Delete'}
      </Button>
      {pause.error ? (
        <p role="alert" className="w-full text-sm text-red-700">
          {pause.error.message}
        </p>
      ) : null}
      <ConfirmDialog
        open={open}
        title={`Delete the set ${set.name}?`}
        confirmLabel="Delete set and members"
        pending={remove.isPending}
        error={remove.error?.message}
        onClose={() => setOpen(false)}
        onConfirm={() =>
          void remove.mutateAsync(undefined).then(
            () => {
              setOpen(false);
              router.push('/sets');
            },
            () => undefined, // shown in the dialog
          )
        }
      >
        <p>
          This deletes all {set.status.members} members of {set.name} (their VMs and disks), then the set. Crawler clients stop getting their addresses at once.
        </p>
      </ConfirmDialog>
    </>
  );
}
