'use client';
// "Connect a crawler": pick or create a gateway token, build the username, and copy the URL or a
// ready-made snippet. The host is the configured one, or this browser's when the gateway listens
// on every interface.
import { useState, useSyncExternalStore } from 'react';
import type { GatewayView } from '@/lib/api/gateway';
import { CopyButton } from '@/components/ui/copy-button';
import { Panel } from '@/components/ui/panel';
import { type GatewayCredentials, gatewayHostFor, gatewayUrl, isLoopbackHost, secretPlaceholder } from './gateway-url';
import { useTokens } from '@/components/settings/queries';
import type { CreatedGatewayToken } from './queries';
import { SnippetsList } from './snippets-list';
import { type TokenChoice, noTokenPlaceholder, tokenChoice } from './token-choice';
import { TokenPicker } from './token-picker';
import { type BuilderFields, UsernameBuilder, choiceFrom, initialBuilderFields } from './username-builder';
import { buildUsername } from './username-grammar';

const noSubscription = () => () => {};
/** The hostname this page was loaded from ('' while rendering on the server). */
const useBrowserHostname = (): string =>
  useSyncExternalStore(
    noSubscription,
    () => window.location.hostname,
    () => '',
  );

function TokenNote({ choice }: { choice: TokenChoice }) {
  if (choice.kind === 'complete')
    return (
      <p role="status" className="rounded-md border border-emerald-300 bg-emerald-50 p-3 text-sm text-emerald-950">
        Gateway token {choice.name} created and filled in. Copy the URL now: its secret is not shown again.
      </p>
    );
  if (choice.kind === 'placeholder')
    return (
      <p className="text-sm text-slate-700">
        The secret of {choice.name} was shown only when it was created: replace <code className="font-mono">{secretPlaceholder}</code> with it, or create a new
        gateway token to get a complete URL.
      </p>
    );
  return (
    <p className="text-sm text-slate-700">
      Create one with New gateway token: it replaces <code className="font-mono">{noTokenPlaceholder}</code> in the URL.
    </p>
  );
}

export function ConnectPanel({ view }: { view: GatewayView }) {
  const tokens = useTokens('gateway');
  const [selectedId, setSelectedId] = useState<string>();
  const [created, setCreated] = useState<CreatedGatewayToken>();
  const [fields, setFields] = useState<BuilderFields>(initialBuilderFields);
  const browserHostname = useBrowserHostname();
  const choice = tokenChoice({ tokens: tokens.data ?? [], selectedId, created });
  const credentials: GatewayCredentials = {
    host: gatewayHostFor({ configured: view.host, browserHostname }),
    port: view.port,
    username: buildUsername(choiceFrom(fields)),
    password: choice.password,
  };
  const url = gatewayUrl(credentials);
  const unreachable = isLoopbackHost(view.host) && browserHostname !== '' && !isLoopbackHost(browserHostname);
  return (
    <>
      <Panel title="Connect a crawler">
        <div className="space-y-5">
          <TokenPicker
            tokens={tokens}
            selectedId={selectedId ?? created?.id ?? tokens.data?.[0]?.id}
            onSelect={setSelectedId}
            onCreated={(token) => {
              setCreated(token);
              setSelectedId(token.id);
            }}
          />
          <UsernameBuilder fields={fields} onChange={setFields} />
          <div className="space-y-2">
            <h3 className="text-sm font-semibold text-slate-900">Proxy URL</h3>
            <div className="flex flex-wrap items-start gap-2">
              <code className="min-w-0 flex-1 break-all rounded-md bg-slate-100 p-2 font-mono text-sm text-slate-900" data-testid="gateway-url">
                {url}
              </code>
              <CopyButton text={url} label="Copy URL" />
            </div>
            <TokenNote choice={choice} />
            {unreachable ? (
              <p role="note" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950">
                The gateway listens on {view.host} only: crawlers on other machines cannot reach it. Set GATEWAY_HOST to this machine&apos;s LAN address (or
                0.0.0.0 for every interface) and restart the dashboard.
              </p>
            ) : null}
          </div>
        </div>
      </Panel>
      <Panel title="Snippets">
        <SnippetsList credentials={credentials} />
      </Panel>
    </>
  );
}
