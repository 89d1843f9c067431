'use client';
// The set's knobs: how many members, and the limits of the controller that keeps them (when a member
// counts as failing, how many replacements it may make, how long a host may be down, rollout pace).
import type { FieldMessages } from '@/components/api/client';
import { Field, controlClass } from '@/components/ui/field';
import { Panel } from '@/components/ui/panel';
import type { SetFormState } from './set-form-model';

type Key = 'replicas' | 'readyTimeout' | 'budgetMax' | 'budgetWindow' | 'hostDownGrace' | 'maxSurge' | 'maxUnavailable';

const fields: Array<{ key: Key; error: string; label: string; hint: string }> = [
  { key: 'replicas', error: 'replicas', label: 'Replicas', hint: 'How many members the set keeps.' },
  { key: 'readyTimeout', error: 'readyTimeout', label: 'Ready timeout', hint: 'A member not Ready this long (e.g. 10m) is replaced.' },
  { key: 'budgetMax', error: 'replacementBudget.max', label: 'Replacement budget', hint: 'At most this many replacements per window; empty: the replicas.' },
  {
    key: 'budgetWindow',
    error: 'replacementBudget.window',
    label: 'Budget window',
    hint: 'e.g. 30m. Past the budget the set stops replacing and waits for you.',
  },
  { key: 'hostDownGrace', error: 'hostDownGrace', label: 'Host-down grace', hint: 'Members of a host unreachable this long get replacements elsewhere.' },
  { key: 'maxSurge', error: 'maxSurge', label: 'Max surge', hint: 'New members made at a time during a rolling change.' },
  { key: 'maxUnavailable', error: 'maxUnavailable', label: 'Max unavailable', hint: 'How far Ready members may drop below the replicas while rolling.' },
];

export function SettingsFields({
  state,
  onChange,
  errors,
  hideReplicas = false,
}: {
  state: SetFormState;
  onChange: (patch: Partial<SetFormState>) => void;
  errors: FieldMessages;
  hideReplicas?: boolean;
}) {
  return (
    <Panel title="Replicas and limits">
      <div className="grid gap-4 md:grid-cols-3">
        {fields
          .filter((field) => !(hideReplicas && field.key === 'replicas'))
          .map((field) => (
            <Field key={field.key} id={`set-${field.key}`} label={field.label} error={errors[field.error]} hint={field.hint}>
              {(aria) => (
                <input
                  {...aria}
                  className={controlClass}
                  value={state[field.key]}
                  onChange={(event) => onChange({ [field.key]: event.target.value })}
                  autoComplete="off"
                />
              )}
            </Field>
          ))}
      </div>
    </Panel>
  );
}
