'use client';
// Where the Proxy's cloud-init comes from: the Squid preset (only the networks entered may use the
// proxy), pasted or loaded from a file as-is (sent byte for byte, never re-rendered, checked by the
// editor), none, or (editing) the one stored, which the API never sends back.
import type { FieldMessages } from '@/components/api/client';
import { Field, controlClass } from '@/components/ui/field';
import { checkCloudInit } from './cloud-init-check';
import { CloudInitEditor } from './cloud-init-editor';
import { parseNetworks, squidCloudInit } from './squid-preset';
import { useYamlCheck } from './use-yaml-check';

export type CloudInitSource = 'keep' | 'squid' | 'paste' | 'none';

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

export interface ResolvedCloudInit {
  /** undefined: keep the stored user-data (left out of a PUT) */
  cloudInit: string | undefined;
  error?: string;
  /** the form field the error belongs to */
  field?: 'networks' | 'cloudInit';
}

/** The user-data to send, or the error that stops the form. */
export function resolveCloudInit(state: CloudInitState, port: number): ResolvedCloudInit {
  if (state.source === 'keep') return { cloudInit: undefined };
  if (state.source === 'none') return { cloudInit: '' };
  if (state.source === 'paste') {
    const check = checkCloudInit(state.pasted);
    return check.ok ? { cloudInit: state.pasted } : { cloudInit: state.pasted, error: check.message, field: 'cloudInit' };
  }
  const { networks, error } = parseNetworks(state.networks);
  if (error) return { cloudInit: '', error, field: 'networks' };
  return { cloudInit: squidCloudInit({ port: Number.isInteger(port) ? port : 3128, networks }) };
}

export interface CloudInitFieldsProps {
  state: CloudInitState;
  onChange: (next: CloudInitState) => void;
  port: number;
  /** the form's messages; this reads `networks` and `cloudInit` */
  errors: FieldMessages;
  /** editing: the size of the stored user-data, offered as "keep" */
  stored?: { bytes: number };
}

export function CloudInitFields({ state, onChange, port, errors, stored }: CloudInitFieldsProps) {
  useYamlCheck();
  const preview = state.source === 'squid' || state.source === 'paste' ? resolveCloudInit(state, port) : undefined;
  const choices = stored
    ? [{ value: 'keep' as const, label: 'Keep the current cloud-init', hint: `${stored.bytes} bytes, unchanged (the VM is not replaced for it).` }, ...sources]
    : sources;
  return (
    <fieldset className="space-y-3">
      <legend className="sr-only">Cloud-init source</legend>
      <div className="space-y-2">
        {choices.map((source) => (
          <label key={source.value} className="flex items-start gap-2 text-sm">
            <input
              type="radio"
              name="cloud-init-source"
              value={source.value}
              checked={state.source === source.value}
              onChange={() => onChange({ ...state, source: source.value })}
              className="mt-1 focus-visible:outline-2 focus-visible:outline-blue-600"
            />
            <span>
              <span className="font-medium text-slate-900">{source.label}</span>
              <span className="block text-xs text-slate-600">{source.hint}</span>
            </span>
          </label>
        ))}
      </div>
      {state.source === 'squid' ? (
        <>
          <Field
            id="squid-networks"
            label="Networks allowed to use the proxy"
            error={errors.networks}
            hint="CIDRs or addresses, separated by commas or new lines. Include the network this dashboard runs in, or its health probes are refused."
          >
            {(aria) => (
              <textarea
                {...aria}
                rows={2}
                className={`${controlClass} font-mono`}
                value={state.networks}
                placeholder="192.168.1.0/24, 10.8.0.0/16"
                onChange={(event) => onChange({ ...state, networks: event.target.value })}
              />
            )}
          </Field>
          {preview && !preview.error ? (
            <details className="rounded-md border border-slate-200 bg-slate-50 p-2 text-sm">
              <summary className="cursor-pointer font-medium text-slate-800">Show the generated cloud-init</summary>
              <pre
                tabIndex={0}
                aria-label="Generated cloud-init"
                className="mt-2 overflow-x-auto text-xs text-slate-800 focus-visible:outline-2 focus-visible:outline-blue-600"
                data-testid="squid-preview"
              >
                {preview.cloudInit}
              </pre>
            </details>
          ) : null}
        </>
      ) : null}
      {state.source === 'paste' ? (
        <>
          <CloudInitEditor id="cloud-init" value={state.pasted} error={errors.cloudInit} onChange={(pasted) => onChange({ ...state, pasted })} />
          {preview && !preview.error && preview.cloudInit ? <UserDataPreview text={preview.cloudInit} /> : null}
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

/** Exactly what the VM's NoCloud seed will carry as user-data, byte for byte. */
function UserDataPreview({ text }: { text: string }) {
  return (
    <details className="rounded-md border border-slate-200 bg-slate-50 p-2 text-sm">
      <summary className="cursor-pointer font-medium text-slate-800">
        Show the user-data the VM will get ({new TextEncoder().encode(text).length} bytes)
      </summary>
      <pre
        tabIndex={0}
        aria-label="User-data the VM will get"
        data-testid="user-data-preview"
        className="mt-2 overflow-x-auto text-xs text-slate-800 focus-visible:outline-2 focus-visible:outline-blue-600"
      >
        {text}
      </pre>
    </details>
  );
}
