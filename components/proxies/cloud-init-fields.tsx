'use client';
// Where the Proxy's cloud-init comes from: the Squid preset (only the networks entered may use the
// proxy), pasted or loaded from a file as-is (sent byte for byte, never re-rendered), or none.
import { Field, controlClass } from '@/components/ui/field';
import { parseNetworks, squidCloudInit } from './squid-preset';

export type CloudInitSource = 'squid' | 'paste' | 'none';

export interface CloudInitState {
  source: CloudInitSource;
  networks: string;
  pasted: string;
}

const sources: Array<{ value: CloudInitSource; label: string; hint: string }> = [
  { value: 'squid', label: 'Squid proxy (preset)', hint: 'Installs Squid on the port above; only the networks you list may use it.' },
  { value: 'paste', label: 'My own cloud-init', hint: 'Any format cloud-init accepts; sent exactly as given.' },
  { value: 'none', label: 'None', hint: 'The image boots with no user-data.' },
];

/** The user-data to send, or the error that stops the form. */
export function resolveCloudInit(state: CloudInitState, port: number): { cloudInit: string; error?: string } {
  if (state.source === 'none') return { cloudInit: '' };
  if (state.source === 'paste') return { cloudInit: state.pasted };
  const { networks, error } = parseNetworks(state.networks);
  if (error) return { cloudInit: '', error };
  return { cloudInit: squidCloudInit({ port: Number.isInteger(port) ? port : 3128, networks }) };
}

export function CloudInitFields({ state, onChange, port, errors }: { state: CloudInitState; onChange: (next: CloudInitState) => void; port: number; errors: { networks?: string; cloudInit?: string } }) {
  const preview = state.source === 'squid' ? resolveCloudInit(state, port) : undefined;
  return (
    <fieldset className="space-y-3">
      <legend className="sr-only">Cloud-init source</legend>
      <div className="space-y-2">
        {sources.map((source) => (
          <label key={source.value} className="flex items-start gap-2 text-sm">
            <input type="radio" name="cloud-init-source" value={source.value} checked={state.source === source.value} onChange={() => onChange({ ...state, source: source.value })} className="mt-1 focus-visible:outline-2 focus-visible:outline-blue-600" />
            <span>
              <span className="font-medium text-slate-900">{source.label}</span>
              <span className="block text-xs text-slate-600">{source.hint}</span>
            </span>
          </label>
        ))}
      </div>
      {state.source === 'squid' ? (
        <>
          <Field id="squid-networks" label="Networks allowed to use the proxy" error={errors.networks} hint="CIDRs or addresses, separated by commas or new lines. Include the network this dashboard runs in, or its health probes are refused.">
            {(aria) => <textarea {...aria} rows={2} className={`${controlClass} font-mono`} value={state.networks} placeholder="192.168.1.0/24, 10.8.0.0/16" onChange={(event) => onChange({ ...state, networks: event.target.value })} />}
          </Field>
          {preview && !preview.error ? (
            <details className="rounded-md border border-slate-200 bg-slate-50 p-2 text-sm">
              <summary className="cursor-pointer font-medium text-slate-800">Show the generated cloud-init</summary>
              <pre tabIndex={0} aria-label="Generated cloud-init" className="mt-2 overflow-x-auto text-xs text-slate-800 focus-visible:outline-2 focus-visible:outline-blue-600" data-testid="squid-preview">
                {preview.cloudInit}
              </pre>
            </details>
          ) : null}
        </>
      ) : null}
      {state.source === 'paste' ? (
        <>
          <Field id="cloud-init" label="cloud-init user-data" error={errors.cloudInit} hint="At most 64 KiB. Loading a file keeps its bytes exactly, line endings included.">
            {(aria) => <textarea {...aria} rows={10} spellCheck={false} className={`${controlClass} font-mono text-xs`} value={state.pasted} onChange={(event) => onChange({ ...state, pasted: event.target.value })} placeholder={'#cloud-config\n…'} />}
          </Field>
          <div>
            <label htmlFor="cloud-init-file" className="text-sm font-medium text-slate-900">
              Or load a file
            </label>
            <input
              id="cloud-init-file"
              type="file"
              className="mt-1 block text-sm file:mr-3 file:rounded-md file:border file:border-slate-300 file:bg-white file:px-3 file:py-1.5"
              onChange={async (event) => {
                const file = event.target.files?.[0];
                if (file) onChange({ ...state, pasted: await file.text() });
              }}
            />
          </div>
        </>
      ) : null}
    </fieldset>
  );
}
