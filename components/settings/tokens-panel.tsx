'use client';
// Tokens of one kind: API tokens for crawler clients (discovery) and metrics scrapers, or gateway
// tokens, the crawlers' proxy password. Create one (its secret shown once, with a copy button),
// list them, revoke behind a confirmation. The kinds differ only in words and in their API.
import { type ReactNode, useState } from 'react';
import { hasCode } from '@/components/api/client';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { EmptyState } from '@/components/ui/empty-state';
import { ErrorPanel } from '@/components/ui/error-panel';
import { Field, controlClass } from '@/components/ui/field';
import { formatTime } from '@/components/ui/format';
import { SkeletonRows } from '@/components/ui/skeleton';
import { Table, Td, actionsColumn } from '@/components/ui/table';
import { type ApiToken, type CreatedToken, type TokenKind, useCreateToken, useRevokeToken, useTokens } from './queries';

interface KindText {
  /** how a token of this kind is called, capitalised */
  noun: string;
  /** element ids, unique on the page */
  fieldId: string;
  testId: string;
  nameHint: string;
  /** what revoking does to the clients using it */
  revokeEffect: string;
  /** the list's accessible name */
  listLabel: string;
  /** the list while it loads or fails, in a sentence */
  plural: string;
  emptyTitle: string;
  empty: ReactNode;
}

const kindText: Record<TokenKind, KindText> = {
  api: {
    noun: 'Token',
    fieldId: 'token-name',
    testId: 'new-token',
    nameHint: 'What will use it, e.g. crawler-eu or prometheus.',
    revokeEffect: 'Clients using this token get 401 from the discovery API and metrics from their next request.',
    listLabel: 'API tokens',
    plural: 'tokens',
    emptyTitle: 'No API tokens',
    empty: 'Crawler clients need one to ask the discovery API (GET /api/discovery/proxies) for proxy addresses; Prometheus needs one for /api/metrics.',
  },
  gateway: {
    noun: 'Gateway token',
    fieldId: 'gateway-token-name',
    testId: 'new-gateway-token',
    nameHint: 'Which crawler will use it, e.g. crawler-eu. It is the password of the proxy URL http://<selector>:<token>@<dashboard host>:8888.',
    revokeEffect: 'Crawlers using this token get 407 from the gateway on their next connection.',
    listLabel: 'Gateway tokens',
    plural: 'gateway tokens',
    emptyTitle: 'No gateway tokens',
    empty:
      'A crawler needs one as the password of its proxy URL to use the gateway. Gateway tokens open the gateway only, never the API; API tokens do not open the gateway.',
  },
};

function NewToken({ created, text, onDone }: { created: CreatedToken; text: KindText; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div role="status" className="space-y-2 rounded-md border border-emerald-300 bg-emerald-50 p-3 text-sm text-emerald-950">
      <p className="font-semibold">
        {text.noun} {created.name} created. Copy it now: it is not shown again.
      </p>
      <code className="block break-all rounded bg-white p-2 font-mono text-xs text-slate-900" data-testid={text.testId}>
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

function RevokeButton({ token, kind }: { token: ApiToken; kind: TokenKind }) {
  const [open, setOpen] = useState(false);
  const revoke = useRevokeToken(kind);
  const text = kindText[kind];
  return (
    <>
      <Button tone="secondary" onClick={() => setOpen(true)}>
        Revoke<span className="sr-only"> {token.name}</span>
      </Button>
      <ConfirmDialog
        open={open}
        title={`Revoke ${token.name}?`}
        confirmLabel={`Revoke ${text.noun.toLowerCase()}`}
        pending={revoke.isPending}
        error={revoke.error?.message}
        onClose={() => setOpen(false)}
        onConfirm={() => revoke.mutate(token.id, { onSuccess: () => setOpen(false) })}
      >
        <p>{text.revokeEffect} This cannot be undone; create a new token for them instead.</p>
      </ConfirmDialog>
    </>
  );
}

export function TokensPanel({ kind = 'api' }: { kind?: TokenKind }) {
  const tokens = useTokens(kind);
  const create = useCreateToken(kind);
  const text = kindText[kind];
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
          <Field id={text.fieldId} label={`New ${text.noun.toLowerCase()} name`} error={nameError} hint={text.nameHint}>
            {(aria) => <input {...aria} className={controlClass} value={name} onChange={(event) => setName(event.target.value)} required />}
          </Field>
        </div>
        <Button type="submit" tone="primary" disabled={create.isPending || name.trim() === ''}>
          {create.isPending ? 'Creating…' : `Create ${text.noun.toLowerCase()}`}
        </Button>
      </form>
      {created ? <NewToken created={created} text={text} onDone={() => setCreated(undefined)} /> : null}
      {tokens.isPending ? (
        <SkeletonRows rows={2} label={text.plural} />
      ) : tokens.isError ? (
        <ErrorPanel title={`Could not load the ${text.plural}`} error={tokens.error} onRetry={() => void tokens.refetch()} />
      ) : tokens.data.length === 0 ? (
        <EmptyState title={text.emptyTitle}>{text.empty}</EmptyState>
      ) : (
        <Table label={text.listLabel} columns={['Name', 'Created', 'Last used', actionsColumn]}>
          {tokens.data.map((token) => (
            <tr key={token.id}>
              <Td className="font-medium">
                {token.name} {token.prefix ? <span className="font-mono text-xs text-slate-600">{token.prefix}…</span> : null}
              </Td>
              <Td>{formatTime(token.createdAt)}</Td>
              <Td>{token.lastUsedAt ? formatTime(token.lastUsedAt) : 'never'}</Td>
              <Td>
                <RevokeButton token={token} kind={kind} />
              </Td>
            </tr>
          ))}
        </Table>
      )}
    </div>
  );
}
