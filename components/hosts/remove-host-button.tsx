'use client';
// Removes a host from the providers config, behind a confirmation; a host that still has Proxies is
// refused by the server, and the refusal (naming them) shows in the dialog.
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { useRemoveHost } from './setup-queries';

export function RemoveHostButton({ provider, host }: { provider: string; host: string }) {
  const [open, setOpen] = useState(false);
  const remove = useRemoveHost();
  return (
    <>
      <Button tone="ghost" onClick={() => setOpen(true)}>
        Remove<span className="sr-only"> host {host}</span>
      </Button>
      <ConfirmDialog
        open={open}
        title={`Remove host ${host}?`}
        confirmLabel="Remove host"
        pending={remove.isPending}
        error={remove.error?.message}
        onClose={() => setOpen(false)}
        onConfirm={() => remove.mutate({ provider, host }, { onSuccess: () => setOpen(false) })}
      >
        <p>
          The host goes from the providers config (the previous file is kept as a backup). Nothing on the host is touched. A host that still has Proxies cannot
          be removed.
        </p>
      </ConfirmDialog>
    </>
  );
}
