// The foot of a create or edit form: submit (saying so while the request runs) and Cancel back to
// where the form came from.
import { Button, LinkButton } from './button';

export interface FormActionsProps {
  label: string;
  /** the submit's label while `pending` */
  pendingLabel: string;
  pending: boolean;
  /** nothing to submit yet (no change, or invalid fields) */
  disabled?: boolean;
  cancelHref: string;
}

export function FormActions({ label, pendingLabel, pending, disabled = false, cancelHref }: FormActionsProps) {
  return (
    <div className="flex flex-wrap gap-3">
      <Button type="submit" tone="primary" disabled={pending || disabled}>
        {pending ? pendingLabel : label}
      </Button>
      <LinkButton href={cancelHref}>Cancel</LinkButton>
    </div>
  );
}
