'use client';
// Builds a gateway username from choices (a set, a label, a session, or one pinned Proxy) so the
// admin need not learn the grammar first; the grammar table below says what each part does.
import { Field, controlClass } from '@/components/ui/field';
import { useProxies } from '@/components/proxies/queries';
import { useProxySets } from '@/components/proxysets/queries';
import { type UsernameChoice, labelFromText } from './username-grammar';

export interface BuilderFields {
  client: string;
  set: string;
  label: string;
  session: string;
  proxy: string;
}

export const initialBuilderFields: BuilderFields = { client: 'crawler', set: '', label: '', session: '', proxy: '' };

/** The choice the fields make (a label not yet written as key=value is left out). */
export function choiceFrom(fields: BuilderFields): UsernameChoice {
  const { label } = labelFromText(fields.label);
  return { client: fields.client, set: fields.set, labels: label ? [label] : [], session: fields.session.trim(), proxy: fields.proxy };
}

export function UsernameBuilder({ fields, onChange }: { fields: BuilderFields; onChange: (fields: BuilderFields) => void }) {
  const sets = useProxySets();
  const proxies = useProxies();
  const set = (key: keyof BuilderFields) => (event: { target: { value: string } }) => onChange({ ...fields, [key]: event.target.value });
  const pinned = fields.proxy !== '';
  const pinnedHint = pinned ? 'Not with a pinned Proxy: it is the only one used.' : undefined;
  return (
    <fieldset className="space-y-3">
      <legend className="text-sm font-semibold text-slate-900">Username</legend>
      <div className="grid gap-3 sm:grid-cols-2 xl:grid-cols-5">
        <Field id="gateway-client" label="Client name" hint="Names the crawler in the logs; selects nothing.">
          {(aria) => <input {...aria} className={controlClass} value={fields.client} onChange={set('client')} />}
        </Field>
        <Field id="gateway-set" label="Set" hint={pinnedHint ?? 'Only members of this set.'}>
          {(aria) => (
            <select {...aria} className={controlClass} value={fields.set} onChange={set('set')} disabled={pinned}>
              <option value="">Any set</option>
              {(sets.data ?? []).map((entry) => (
                <option key={entry.name} value={entry.name}>
                  {entry.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id="gateway-label" label="Label" hint={pinnedHint ?? 'key=value: only Proxies carrying it.'} error={labelFromText(fields.label).error}>
          {(aria) => <input {...aria} className={controlClass} value={fields.label} onChange={set('label')} placeholder="pool=crawl" disabled={pinned} />}
        </Field>
        <Field id="gateway-session" label="Session id" hint={pinnedHint ?? 'Sticky: the same id keeps its proxy while it is Ready.'}>
          {(aria) => <input {...aria} className={controlClass} value={fields.session} onChange={set('session')} placeholder="42" disabled={pinned} />}
        </Field>
        <Field id="gateway-proxy" label="Pin one Proxy" hint="Exactly this Proxy, nothing else.">
          {(aria) => (
            <select {...aria} className={controlClass} value={fields.proxy} onChange={set('proxy')}>
              <option value="">No, choose for me</option>
              {(proxies.data ?? []).map((proxy) => (
                <option key={proxy.name} value={proxy.name}>
                  {proxy.name} ({proxy.status.phase})
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
    </fieldset>
  );
}
