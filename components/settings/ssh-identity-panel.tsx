'use client';
// The server's SSH identity: per kvm2 provider entry, the public key it logs in to hosts with and
// the command that authorises it on a host for the user the admin names (with a copy button); when
// the configured key file does not exist, a button that generates an ed25519 pair there.
import { useState } from 'react';
import { authoriseCommand } from '@/lib/authorise-command';
import { useGenerateIdentity, useIdentities, type Identity } from '@/components/hosts/setup-queries';
import { Button } from '@/components/ui/button';
import { CopyButton } from '@/components/ui/copy-button';
import { EmptyState } from '@/components/ui/empty-state';
import { ErrorPanel } from '@/components/ui/error-panel';
import { Field, controlClass } from '@/components/ui/field';
import { SkeletonRows } from '@/components/ui/skeleton';

function AuthoriseLine({ identity }: { identity: Identity & { publicKey: string } }) {
  const [user, setUser] = useState('');
  const id = `authorise-user-${identity.provider ?? 'new'}`;
  const command = authoriseCommand(identity.publicKey, user.trim() || 'USER');
  return (
    <div className="space-y-2">
      <Field id={id} label="SSH user on the host" hint="The user the server logs in as; it must be in the host's libvirt group.">
        {(aria) => <input {...aria} className={controlClass} value={user} placeholder="admin" onChange={(event) => setUser(event.target.value)} />}
      </Field>
      <p className="text-sm text-slate-700">Run this on the host as root to authorise the server&apos;s key:</p>
      <code className="block break-all rounded bg-slate-100 p-2 font-mono text-xs text-slate-900" data-testid="authorise-command">
        {command}
      </code>
      <CopyButton text={command} label="Copy command" />
    </div>
  );
}

function IdentityCard({ identity }: { identity: Identity }) {
  const generate = useGenerateIdentity();
  const title = identity.provider ? `Provider ${identity.provider}` : 'Key for a first provider entry';
  return (
    <article className="space-y-3 rounded-md border border-slate-200 p-3" data-testid={`identity-${identity.provider ?? 'new'}`}>
      <h3 className="text-sm font-semibold text-slate-900">{title}</h3>
      {!identity.exists ? (
        <div className="space-y-2">
          <p className="text-sm text-slate-700">
            The configured SSH key file does not exist yet. Generate an ed25519 key pair there (private key readable by this server only, public key beside it).
          </p>
          <Button tone="primary" disabled={generate.isPending} onClick={() => generate.mutate(identity.provider)}>
            Generate key pair
          </Button>
          {generate.error ? <p className="text-sm text-red-700">{generate.error.message}</p> : null}
        </div>
      ) : identity.publicKey ? (
        <div className="space-y-3">
          <p className="break-all text-sm text-slate-700">
            {identity.keyType} key, fingerprint <span className="font-mono">{identity.fingerprint}</span>
          </p>
          <code className="block break-all rounded bg-slate-100 p-2 font-mono text-xs text-slate-900" data-testid="public-key">
            {identity.publicKey}
          </code>
          <AuthoriseLine identity={{ ...identity, publicKey: identity.publicKey }} />
        </div>
      ) : (
        <p className="text-sm text-red-700">{identity.problem}</p>
      )}
    </article>
  );
}

export function SshIdentityPanel() {
  const identities = useIdentities();
  if (identities.isPending) return <SkeletonRows rows={2} label="SSH identity" />;
  if (identities.isError) return <ErrorPanel title="Could not load the SSH identity" error={identities.error} onRetry={() => void identities.refetch()} />;
  if (identities.data.length === 0)
    return <EmptyState title="No providers config">Set PROVIDERS_CONFIG to a file the server may write; the key is kept beside it.</EmptyState>;
  return (
    <div className="space-y-4">
      {identities.data.map((identity) => (
        <IdentityCard key={identity.provider ?? 'new'} identity={identity} />
      ))}
    </div>
  );
}
