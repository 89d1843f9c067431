'use client';
// "Are you sure?" for destructive actions: says what will happen, shows the server's refusal in
// place, and starts focused on Cancel so Enter never destroys by accident.
import type { ReactNode } from 'react';
import { Button } from './button';
import { Dialog } from './dialog';

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  pending?: boolean;
  /** the last failure of the action, shown inside the dialog */
  error?: string;
  onConfirm: () => void;
  onClose: () => void;
}

export function ConfirmDialog({ open, title, children, confirmLabel, pending = false, error, onConfirm, onClose }: ConfirmDialogProps) {
  return (
    <Dialog
      open={open}
      title={title}
      onClose={onClose}
      footer={
        <>
          <Button autoFocus onClick={onClose}>
            Cancel
          </Button>
          <Button tone="danger" onClick={onConfirm} disabled={pending}>
            {pending ? 'Working…' : confirmLabel}
          </Button>
        </>
      }
    >
      {children}
      {error ? (
        <p role="alert" className="rounded-md border border-red-300 bg-red-50 p-2 text-red-900">
          {error}
        </p>
      ) : null}
    </Dialog>
  );
}
