'use client';
// API tokens for crawler clients (discovery) and metrics scrapers: create one (its secret shown
// once, with a copy button), list them, revoke behind a confirmation.
import { useState } from 'react';
import { hasCode } from '@/components/api/client';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { EmptyState } from '@/components/ui/empty-state';
import { ErrorPanel } from '@/components/ui/error-panel';
import { Field, controlClass } from '@/components/ui/field';
import { formatTime } from '@/components/ui/format';
import { SkeletonRows } from '@/components/ui/skeleton';
import { TableScroll, Td, Th } from '@/components/ui/table';
import { type ApiToken, type CreatedToken, useCreateToken, useRevokeToken, useTokens } from './queries';

function NewToken({ created, onDone }: { created: CreatedToken; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div role="status" className="space-y-2 rounded-md border border-emerald-300 bg-emerald-50 p-3 text-sm text-emerald-950">
      <p className="font-semibold">Token {created.name} created. Copy it now: it is not shown again.</p>
      <code className="block break-all rounded bg-white p-2 font-mono text-xs text-slate-900" data-testid="new-token">
        {created.token}
      </code>
      <div className="flex gap-2">
        <Button
          onClick={async () => {
            await navigator.clipboard?.writeText(created.token);
            setCopied(true);
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </Button>
        <Button tone="ghost" onClick={onDone}>
          Done
        </Button>
      </div>
    </div>
  );
}

function RevokeButton({ token }: { token: ApiToken }) {
  const [open, setOpen] = useState(false);
  const revoke = useRevokeToken();
  return (
    <>
      <Button tone="secondary" onClick={() => setOpen(true)}>
        Revoke<span className="sr-only"> {token.name}</span>
      </Button>
      <ConfirmDialog
        open={open}
        title={`Revoke ${token.name}?`}
        confirmLabel="Revoke token"
        pending={revoke.isPending}
        error={revoke.error?.message}
        onClose={() => setOpen(false)}
        onConfirm={() => revoke.mutate(token.id, { onSuccess: () => setOpen(false) })}
      >
        <p>
          Clients using this token get 401 from the discovery API and metrics from their next request. This cannot be undone; create a new token for them
          instead.
        </p>
      </ConfirmDialog>
    </>
  );
}

export function TokensPanel() {
  const tokens = useTokens();
  const create = useCreateToken();
  const [name, setName] = useState('');
  const [created, setCreated] = useState<CreatedToken>();
  const nameError = hasCode(create.error, 'ERR_INVALID_INPUT') ? (create.error.fields.name ?? create.error.message) : create.error?.message;
  return (
    <div className="space-y-4">
      <form
        className="flex flex-wrap items-end gap-3"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate(name.trim(), {
            onSuccess: (token) => {
              setCreated(token);
              setName('');
            },
          });
        }}
      >
        <div className="min-w-56 flex-1">
          <Field id="token-name" label="New token name" error={nameError} hint="What will use it, e.g. crawler-eu or prometheus.">
            {(aria) => <input {...aria} className={controlClass} value={name} onChange={(event) => setName(event.target.value)} required />}
          </Field>
        </div>
        <Button type="submit" tone="primary" disabled={create.isPending || name.trim() === ''}>
          {create.isPending ? 'Creating…' : 'Create token'}
        </Button>
      </form>
      {created ? <NewToken created={created} onDone={() => setCreated(undefined)} /> : null}
      {tokens.isPending ? (
        <SkeletonRows rows={2} label="tokens" />
      ) : tokens.isError ? (
        <ErrorPanel title="Could not load the tokens" error={tokens.error} onRetry={() => void tokens.refetch()} />
      ) : tokens.data.length === 0 ? (
        <EmptyState title="No API tokens">
          Crawler clients need one to ask the discovery API (GET /api/discovery/proxies) for proxy addresses; Prometheus needs one for /api/metrics.
        </EmptyState>
      ) : (
        <TableScroll label="API tokens">
          <thead className="bg-slate-50">
            <tr>
              <Th>Name</Th>
              <Th>Created</Th>
              <Th>Last used</Th>
              <Th>
                <span className="sr-only">Actions</span>
              </Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {tokens.data.map((token) => (
              <tr key={token.id}>
                <Td className="font-medium">
                  {token.name} {token.prefix ? <span className="font-mono text-xs text-slate-600">{token.prefix}…</span> : null}
                </Td>
                <Td>{formatTime(token.createdAt)}</Td>
                <Td>{token.lastUsedAt ? formatTime(token.lastUsedAt) : 'never'}</Td>
                <Td>
                  <RevokeButton token={token} />
                </Td>
              </tr>
            ))}
          </tbody>
        </TableScroll>
      )}
    </div>
  );
}
