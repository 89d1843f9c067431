'use client';
// A Delete button behind a confirmation that says what goes, leaving for another page once the
// server has accepted the deletion.
import { useRouter } from 'next/navigation';
import { type ReactNode, useState } from 'react';
import { Button } from './button';
import { ConfirmDialog } from './confirm-dialog';

export interface DeleteButtonProps {
  /** the deletion is already under way: the button says so and stays disabled */
  deleting: boolean;
  title: string;
  confirmLabel: string;
  /** the delete mutation's state; reset each time the dialog opens */
  mutation: { isPending: boolean; error: Error | null; reset: () => void };
  /** runs the mutation (mutateAsync) */
  remove: () => Promise<unknown>;
  /** where to go once deleted */
  leaveTo: string;
  /** what the deletion does, in the dialog */
  children: ReactNode;
}

export function DeleteButton({ deleting, title, confirmLabel, mutation, remove, leaveTo, children }: DeleteButtonProps) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button
        tone="danger"
        disabled={deleting}
        onClick={() => {
          mutation.reset();
          setOpen(true);
        }}
      >
        {deleting ? 'Deleting…' : 'Delete'}
      </Button>
      <ConfirmDialog
        open={open}
        title={title}
        confirmLabel={confirmLabel}
        pending={mutation.isPending}
        error={mutation.error?.message}
        onClose={() => setOpen(false)}
        // The promise, not mutate's onSuccess: that callback is dropped if this button unmounts
        // first, as it does when the live feed reports the item gone before the answer arrives.
        onConfirm={() =>
          void remove().then(
            () => {
              setOpen(false);
              router.push(leaveTo);
            },
            () => undefined, // shown in the dialog (mutation.error)
          )
        }
      >
        {children}
      </ConfirmDialog>
    </>
  );
}
