'use client';
// A query that failed: its message and a way to try again, announced to screen readers.
import { ApiError } from '@/components/api/client';
import { Button } from './button';
import { errorMessage } from '@/lib/error-message';

export function ErrorPanel({ title, error, onRetry }: { title: string; error: unknown; onRetry?: () => void }) {
  const status = error instanceof ApiError ? ` (HTTP ${error.status})` : '';
  const message = errorMessage(error);
  return (
    <div role="alert" className="rounded-md border border-red-300 bg-red-50 p-4 text-sm text-red-900">
      <p className="font-medium">
        {title}
        {status}
      </p>
      <p className="mt-1 break-words">{message}</p>
      {onRetry ? (
        <Button className="mt-3" onClick={onRetry}>
          Try again
        </Button>
      ) : null}
    </div>
  );
}
