'use client';
// The base-image download a Provisioning Proxy is waiting on: bytes, rate and time left, live.
import { formatBytes, formatDuration, formatRate } from '@/components/ui/format';
import { useDownloadProgress } from './queries';

export function DownloadProgressPanel({ name, waiting }: { name: string; waiting: boolean }) {
  const progress = useDownloadProgress(name, waiting);
  const download = progress.data;
  if (!waiting || !download) return null;
  const fraction = download.totalBytes > 0 ? Math.min(1, download.doneBytes / download.totalBytes) : 0;
  const percent = Math.round(fraction * 100);
  return (
    <section aria-labelledby="download-heading" className="rounded-lg border border-blue-200 bg-blue-50 p-4" data-testid="download-progress">
      <h2 id="download-heading" className="text-sm font-semibold text-blue-950">
        Downloading base image {download.volume} to {download.host}
      </h2>
      <div
        role="progressbar"
        aria-labelledby="download-heading"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        className="mt-2 h-2.5 overflow-hidden rounded-full bg-blue-100"
      >
        <div className="h-full rounded-full bg-blue-700 transition-[width]" style={{ width: `${percent}%` }} />
      </div>
      <p className="mt-2 text-sm text-blue-950" aria-live="polite">
        {formatBytes(download.doneBytes)} of {formatBytes(download.totalBytes)} ({percent}%) ·{' '}
        {download.bytesPerSecond > 0 ? formatRate(download.bytesPerSecond) : 'starting'} ·{' '}
        {download.etaSeconds === null ? 'time left unknown' : `${formatDuration(download.etaSeconds)} left`}
        {download.urlHost ? <> · from {download.urlHost}</> : null}
      </p>
    </section>
  );
}
