'use client';
// Base images downloading into a host's pool right now (from the host listing), with progress.
import type { HostInventoryView } from '@/components/hosts/queries';
import { formatBytes, formatRate } from '@/components/ui/format';

export function DownloadsList({ downloads }: { downloads: HostInventoryView['downloads'] }) {
  if (downloads.length === 0) return null;
  return (
    <ul className="mb-3 space-y-1 text-sm text-blue-950" aria-label="Downloads running" data-testid="host-downloads">
      {downloads.map((download) => {
        const percent = download.totalBytes > 0 ? Math.round(Math.min(1, download.doneBytes / download.totalBytes) * 100) : 0;
        return (
          <li key={download.volume} className="rounded-md border border-blue-200 bg-blue-50 px-3 py-2">
            Downloading <span className="break-all font-mono text-xs">{download.volume}</span>: {formatBytes(download.doneBytes)} of{' '}
            {formatBytes(download.totalBytes)} ({percent}%)
            {download.bytesPerSecond > 0 ? <> · {formatRate(download.bytesPerSecond)}</> : null}
          </li>
        );
      })}
    </ul>
  );
}
