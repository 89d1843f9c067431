'use client';
// Edits a host's fields in the providers config (address, user, bridge, pool, virtualisation),
// prefilled from the config's catalogue; only the lines of the fields that changed are rewritten.
import { useState } from 'react';
import { useConfig } from '@/components/config/queries';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { Field, controlClass } from '@/components/ui/field';
import { virtTypeChoices } from '@/lib/api/host-setup';
import { useUpdateHost } from './setup-queries';

const fieldNames = ['address', 'user', 'bridge', 'pool'] as const;
type Fields = Record<(typeof fieldNames)[number] | 'virtType', string>;

export function EditHostButton({ provider, host }: { provider: string; host: string }) {
  const config = useConfig();
  const configured = config.data?.providers.find((entry) => entry.name === provider)?.catalogue?.hosts.find((entry) => entry.name === host);
  const [open, setOpen] = useState(false);
  const [fields, setFields] = useState<Fields>();
  const update = useUpdateHost();
  if (!configured) return null;
  const current: Fields = fields ?? {
    address: configured.address,
    user: configured.user,
    bridge: configured.bridge,
    pool: configured.pool,
    virtType: configured.virtType,
  };
  const changed = Object.fromEntries(fieldNames.filter((name) => current[name].trim() !== configured[name]).map((name) => [name, current[name].trim()]));
  const chosenType = virtTypeChoices.find((choice) => choice === current.virtType);
  const virtType = chosenType && chosenType !== configured.virtType ? { virtType: chosenType } : {};
  return (
    <>
      <Button tone="ghost" onClick={() => setOpen(true)}>
        Edit<span className="sr-only"> host {host}</span>
      </Button>
      <Dialog
        open={open}
        title={`Edit host ${host}`}
        onClose={() => {
          setOpen(false);
          setFields(undefined);
        }}
        footer={
          <>
            <Button onClick={() => setOpen(false)}>Cancel</Button>
            <Button
              tone="primary"
              disabled={update.isPending}
              onClick={() => update.mutate({ provider, host, fields: { ...changed, ...virtType } }, { onSuccess: () => setOpen(false) })}
            >
              Save changes
            </Button>
          </>
        }
      >
        <div className="space-y-3">
          {fieldNames.map((name) => (
            <Field key={name} id={`edit-${host}-${name}`} label={{ address: 'Address', user: 'SSH user', bridge: 'Bridge', pool: 'Storage pool' }[name]}>
              {(aria) => (
                <input {...aria} className={controlClass} value={current[name]} onChange={(event) => setFields({ ...current, [name]: event.target.value })} />
              )}
            </Field>
          ))}
          <Field id={`edit-${host}-virt-type`} label="Virtualisation">
            {(aria) => (
              <select {...aria} className={controlClass} value={current.virtType} onChange={(event) => setFields({ ...current, virtType: event.target.value })}>
                {configured.virtType === 'kvm' || configured.virtType === 'qemu' ? null : (
                  <option value={configured.virtType}>{configured.virtType} (not written)</option>
                )}
                <option value="kvm">kvm (hardware)</option>
                <option value="qemu">qemu (software emulation)</option>
              </select>
            )}
          </Field>
          {update.error ? (
            <p role="alert" className="rounded-md border border-red-300 bg-red-50 p-2 text-red-900">
              {update.error.message}
            </p>
          ) : null}
        </div>
      </Dialog>
    </>
  );
}
