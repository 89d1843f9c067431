'use client';
// Which gateway token goes in the URL: one of the listed ones (whose secret was shown only at its
// creation, so the URL carries a placeholder for it), or a new one created here, whose whole token
// fills the URL this once.
import { useState } from 'react';
import { hasCode } from '@/components/api/client';
import { Button } from '@/components/ui/button';
import { ErrorPanel } from '@/components/ui/error-panel';
import { Field, controlClass } from '@/components/ui/field';
import { SkeletonRows } from '@/components/ui/skeleton';
import { useCreateToken } from '@/components/settings/queries';
import type { CreatedGatewayToken, GatewayToken } from './queries';

export interface TokenPickerProps {
  tokens: { data?: GatewayToken[]; isPending: boolean; isError: boolean; error: unknown; refetch: () => unknown };
  selectedId: string | undefined;
  onSelect: (id: string) => void;
  onCreated: (token: CreatedGatewayToken) => void;
}

function NewTokenForm({ onCreated }: { onCreated: (token: CreatedGatewayToken) => void }) {
  const create = useCreateToken('gateway');
  const [name, setName] = useState('crawler');
  const nameError = hasCode(create.error, 'ERR_INVALID_INPUT') ? (create.error.fields.name ?? create.error.message) : create.error?.message;
  return (
    <form
      className="flex flex-wrap items-end gap-3"
      onSubmit={(event) => {
        event.preventDefault();
        create.mutate(name.trim(), { onSuccess: onCreated });
      }}
    >
      <div className="min-w-48 flex-1">
        <Field id="gateway-token-name" label="New token name" error={nameError} hint="What will use it, e.g. crawler-eu. Revoke it in Settings.">
          {(aria) => <input {...aria} className={controlClass} value={name} onChange={(event) => setName(event.target.value)} required />}
        </Field>
      </div>
      <Button type="submit" tone="primary" disabled={create.isPending || name.trim() === ''}>
        {create.isPending ? 'Creating…' : 'New gateway token'}
      </Button>
    </form>
  );
}

export function TokenPicker({ tokens, selectedId, onSelect, onCreated }: TokenPickerProps) {
  return (
    <div className="grid gap-4 lg:grid-cols-2">
      <div>
        {tokens.isPending ? (
          <SkeletonRows rows={1} label="gateway tokens" />
        ) : tokens.isError ? (
          <ErrorPanel title="Could not load the gateway tokens" error={tokens.error} onRetry={() => void tokens.refetch()} />
        ) : (tokens.data ?? []).length === 0 ? (
          <p className="rounded-md border border-dashed border-slate-300 bg-slate-50 p-3 text-sm text-slate-700">
            No gateway tokens yet: create one here (or in Settings). Crawlers put it in the URL as the password.
          </p>
        ) : (
          <Field id="gateway-token" label="Gateway token" hint="Its secret was shown once, when it was created.">
            {(aria) => (
              <select {...aria} className={controlClass} value={selectedId ?? ''} onChange={(event) => onSelect(event.target.value)}>
                {(tokens.data ?? []).map((token) => (
                  <option key={token.id} value={token.id}>
                    {token.name} ({token.prefix}…)
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}
      </div>
      <NewTokenForm onCreated={onCreated} />
    </div>
  );
}
