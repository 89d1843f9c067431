'use client';
// The Evict action of one cached image: disabled, with the reason, while VMs back onto it; behind
// a confirmation that says what will happen otherwise.
import { useState } from 'react';
import type { CachedImageView } from '@/components/hosts/queries';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { formatBytes } from '@/components/ui/format';
import { useEvictImage } from './queries';

export function EvictImageButton({ provider, host, pool, image }: { provider: string; host: string; pool?: string; image: CachedImageView }) {
  const [open, setOpen] = useState(false);
  const evict = useEvictImage(provider, host);
  const inUse = image.usedBy > 0;
  const reasonId = `evict-reason-${image.volume}`;
  return (
    <div className="flex flex-col items-start gap-1">
      <Button
        tone="secondary"
        disabled={inUse}
        aria-describedby={inUse ? reasonId : undefined}
        onClick={() => {
          evict.reset();
          setOpen(true);
        }}
      >
        Evict<span className="sr-only"> {image.volume}</span>
      </Button>
      {inUse ? (
        <span id={reasonId} className="block w-56 whitespace-normal text-xs text-slate-600">
          In use by {image.usedBy} VM{image.usedBy === 1 ? '' : 's'} on this host; delete those Proxies first.
        </span>
      ) : null}
      <ConfirmDialog
        open={open}
        title={`Evict ${image.volume}?`}
        confirmLabel="Evict image"
        pending={evict.isPending}
        error={evict.error?.message}
        onClose={() => setOpen(false)}
        onConfirm={() => evict.mutate(image.volume, { onSuccess: () => setOpen(false) })}
      >
        <p>
          This deletes the cached base image <strong className="break-all">{image.volume}</strong> ({formatBytes(image.sizeBytes)}) from pool{' '}
          {pool ?? 'the pool'} on {host}: its digest marker first, then the image itself.
        </p>
        <p>No VM on this host uses it now. The next Proxy that asks for {image.key ? `image ${image.key}` : 'this image'} here downloads it again.</p>
      </ConfirmDialog>
    </div>
  );
}
