'use client';
// The base images cached in a host's pool, with how many VMs back onto each and the Evict action.
import type { CachedImageView } from '@/components/hosts/queries';
import { Badge } from '@/components/ui/badge';
import { EmptyState } from '@/components/ui/empty-state';
import { formatBytes } from '@/components/ui/format';
import { Table, Td, actionsColumn } from '@/components/ui/table';
import { EvictImageButton } from './evict-dialog';

export function ImagesTable({ provider, host, pool, images }: { provider: string; host: string; pool?: string; images: CachedImageView[] }) {
  if (images.length === 0) {
    return (
      <EmptyState title="No cached images">The first Proxy for an image on this host downloads it into the pool; it is kept here for the next ones.</EmptyState>
    );
  }
  return (
    <Table label="Cached base images" columns={['Volume', 'Entry', 'Key', 'Format', 'Size', 'Digest', 'In use by', actionsColumn]}>
      {images.map((image) => (
        <tr key={image.volume} data-testid={`image-row-${image.volume}`}>
          <Td className="font-mono text-xs">
            {image.volume} {image.complete ? null : <Badge tone="warning">incomplete</Badge>}
          </Td>
          <Td>{image.entry ?? '—'}</Td>
          <Td>{image.key ?? '—'}</Td>
          <Td>{image.format ?? '—'}</Td>
          <Td>{formatBytes(image.sizeBytes)}</Td>
          <Td className="font-mono text-xs" title={image.sha256}>
            {image.sha256 ? `${image.sha256.slice(0, 12)}…` : '—'}
          </Td>
          <Td title={image.domains.join(', ') || undefined}>{image.usedBy === 0 ? 'none' : `${image.usedBy} VM${image.usedBy === 1 ? '' : 's'}`}</Td>
          <Td>
            <EvictImageButton provider={provider} host={host} pool={pool} image={image} />
          </Td>
        </tr>
      ))}
    </Table>
  );
}
