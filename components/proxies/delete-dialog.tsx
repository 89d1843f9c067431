'use client';
// Delete a Proxy, behind a confirmation that says what goes and what stays.
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import type { ProxyView } from '@/lib/proxy-spec';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { useDeleteProxy } from './queries';

export function DeleteProxyButton({ proxy }: { proxy: ProxyView }) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const remove = useDeleteProxy();
  const deleting = proxy.status.phase === 'Deleting' || proxy.deletionRequestedAt !== undefined;
  return (
    <>
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
      <ConfirmDialog
        open={open}
        title={`Delete ${proxy.name}?`}
        confirmLabel="Delete Proxy"
        pending={remove.isPending}
        error={remove.error?.message}
        onClose={() => setOpen(false)}
        // The promise, not mutate's onSuccess: that callback is dropped if this button unmounts
        // first, as it does when the live feed reports the Proxy gone before the answer arrives.
        onConfirm={() =>
          void remove.mutateAsync(proxy.name).then(
            () => {
              setOpen(false);
              router.push('/proxies');
            },
            () => undefined, // shown in the dialog (remove.error)
          )
        }
      >
        {proxy.mode === 'Managed' ? (
          <p>
            This destroys the VM <strong className="break-all">{proxy.instanceName ?? proxy.name}</strong>
            {proxy.placement?.zone ? <> on {proxy.placement.zone}</> : null} with its disk and cloud-init seed, then removes the Proxy. Crawler clients stop
            getting its address at once. The cached base image stays on the host for other Proxies.
          </p>
        ) : (
          <p>This removes the Static Proxy record; the proxy at {proxy.address} itself is not touched.</p>
        )}
      </ConfirmDialog>
    </>
  );
}
