// The ready-made snippets for the chosen URL, each with its copy button. The code wraps instead of
// scrolling, so a phone shows all of it and nothing scrolls sideways.
import type { GatewayCredentials } from './gateway-url';
import { CopyButton } from '@/components/ui/copy-button';
import { gatewaySnippets } from './snippets';

export function SnippetsList({ credentials }: { credentials: GatewayCredentials }) {
  return (
    <div className="grid gap-4 xl:grid-cols-2">
      {gatewaySnippets(credentials).map((snippet) => (
        <section key={snippet.tool} aria-labelledby={`snippet-${snippet.tool}`} className="min-w-0 space-y-2">
          <div className="flex items-center justify-between gap-2">
            <h3 id={`snippet-${snippet.tool}`} className="text-sm font-semibold text-slate-900">
              {snippet.title}
            </h3>
            <CopyButton text={snippet.code} label={`Copy ${snippet.title}`} />
          </div>
          <pre className="whitespace-pre-wrap break-words rounded-md bg-slate-900 p-3 font-mono text-xs text-slate-100" data-testid={`snippet-${snippet.tool}`}>
            {snippet.code}
          </pre>
        </section>
      ))}
    </div>
  );
}
