'use client';
// Add a hypervisor without touching YAML: provider entry (existing or new), name, address and
// user; then the host key (type, SHA256 fingerprint, the command that prints it on the host, a
// confirmation before it is written; a key that differs from the known one is a warning, never
// replaced), the login, libvirt, pools and bridges to pick, what the host runs, the health check;
// then the save into the providers config. Each step shows its result, or its failure with the fix.
import { useState } from 'react';
import { useConfig } from '@/components/config/queries';
import { Button } from '@/components/ui/button';
import { Field, controlClass } from '@/components/ui/field';
import { Panel } from '@/components/ui/panel';
import { HostChoices, type HostChoice } from './setup-choices';
import { Failure, HostKeyResult, StepRow, Warnings } from './setup-step-rows';
import { type Candidate, fetchHostKey, type HostKeyStep, runStep, type StepAnswer, type StepName, trustHostKey, useAddHost } from './setup-queries';
import { errorMessage } from '@/lib/error-message';

const newEntryValue = '__new__';
const counted = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

interface Answers {
  authenticate?: StepAnswer<'authenticate'>;
  libvirt?: StepAnswer<'libvirt'>;
  resources?: StepAnswer<'resources'>;
  capabilities?: StepAnswer<'capabilities'>;
  check?: StepAnswer<'check'>;
}

const probeSteps: Array<{ step: Exclude<StepName, 'check'>; title: string }> = [
  { step: 'authenticate', title: "2. Log in with the server's key" },
  { step: 'libvirt', title: '3. Open libvirt' },
  { step: 'resources', title: '4. Pools and bridges' },
  { step: 'capabilities', title: '5. KVM and UEFI firmware' },
];

export function AddHostWizard({ onDone }: { onDone: () => void }) {
  const config = useConfig();
  // The entries whose hosts this wizard adds; a new entry is of the type the server adds hosts for.
  const setupProviders = (config.data?.providers ?? []).filter((provider) => provider.capabilities.setup).map((provider) => provider.name);
  const [provider, setProvider] = useState<string>('');
  const [newName, setNewName] = useState('');
  // A new entry's key files default to beside the providers config (where Settings generates a first key).
  const configDir = config.data?.source?.replace(/\/[^/]*$/, '') ?? '';
  const [editedFiles, setNewFiles] = useState<{ sshKeyFile?: string; knownHostsFile?: string }>({});
  const newFiles = {
    sshKeyFile: editedFiles.sshKeyFile ?? (configDir ? `${configDir}/id_ed25519` : ''),
    knownHostsFile: editedFiles.knownHostsFile ?? (configDir ? `${configDir}/known_hosts` : ''),
  };
  const [host, setHost] = useState({ name: '', address: '', user: '' });
  const [hostKey, setHostKey] = useState<HostKeyStep>();
  const [trusted, setTrusted] = useState(false);
  const [answers, setAnswers] = useState<Answers>({});
  const [choice, setChoice] = useState<HostChoice>({ pool: '', bridge: '', virtType: '' });
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<string>();
  const save = useAddHost();

  const chosenProvider = provider || setupProviders[0] || newEntryValue;
  const isNew = chosenProvider === newEntryValue;
  const base = isNew
    ? { provider: newName.trim(), newEntry: { sshKeyFile: newFiles.sshKeyFile.trim(), knownHostsFile: newFiles.knownHostsFile.trim() } }
    : { provider: chosenProvider };
  const candidate = (): Candidate => ({
    ...base,
    address: host.address.trim(),
    user: host.user.trim(),
    name: host.name.trim(),
    ...(choice.pool ? { pool: choice.pool } : {}),
    ...(choice.bridge ? { bridge: choice.bridge } : {}),
    ...(choice.virtType === 'kvm' || choice.virtType === 'qemu' ? { virtType: choice.virtType } : {}),
  });
  const keyReady = trusted || hostKey?.hostKey?.standing === 'known';

  const guarded = async (what: string, work: () => Promise<void>) => {
    setBusy(what);
    setError(undefined);
    try {
      await work();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(undefined);
    }
  };

  const startOver = () => {
    setHostKey(undefined);
    setTrusted(false);
    setAnswers({});
  };

  const probe = () =>
    guarded('probe', async () => {
      const collected: Answers = {};
      for (const { step } of probeSteps) {
        const answer = await runStep(step, candidate());
        Object.assign(collected, { [step]: answer });
        setAnswers({ ...collected });
        if (!answer.ok) return;
      }
      const resources = collected.resources;
      const capabilities = collected.capabilities;
      setChoice({ pool: resources?.defaults?.pool ?? '', bridge: resources?.defaults?.bridge ?? '', virtType: capabilities?.virtType ?? '' });
    });

  const resources = answers.resources;
  const state = (answer: { ok: boolean } | undefined) => (answer === undefined ? 'pending' : answer.ok ? 'ok' : 'failed');
  const ready = answers.capabilities?.ok === true;
  const checked = answers.check?.ok === true;

  return (
    <Panel
      title="Add a host"
      actions={
        <Button tone="ghost" onClick={onDone}>
          Close
        </Button>
      }
    >
      <form
        className="grid gap-3 sm:grid-cols-2"
        onSubmit={(event) => {
          event.preventDefault();
          startOver();
          void guarded('hostKey', async () => setHostKey(await fetchHostKey(candidate())));
        }}
      >
        <Field id="setup-provider" label="Provider entry">
          {(aria) => (
            <select {...aria} className={controlClass} value={chosenProvider} onChange={(event) => setProvider(event.target.value)}>
              {setupProviders.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
              <option value={newEntryValue}>New provider entry…</option>
            </select>
          )}
        </Field>
        {isNew ? (
          <>
            <Field id="setup-new-name" label="New provider name" hint="Letters, digits, dots, dashes and underscores.">
              {(aria) => <input {...aria} className={controlClass} value={newName} onChange={(event) => setNewName(event.target.value)} required />}
            </Field>
            <Field
              id="setup-new-key"
              label="SSH key file on this server"
              hint="Absolute path; generate the key under Settings once the entry exists, or point at one you have."
            >
              {(aria) => (
                <input
                  {...aria}
                  className={controlClass}
                  value={newFiles.sshKeyFile}
                  onChange={(event) => setNewFiles({ ...newFiles, sshKeyFile: event.target.value })}
                  required
                />
              )}
            </Field>
            <Field id="setup-new-known-hosts" label="known_hosts file on this server">
              {(aria) => (
                <input
                  {...aria}
                  className={controlClass}
                  value={newFiles.knownHostsFile}
                  onChange={(event) => setNewFiles({ ...newFiles, knownHostsFile: event.target.value })}
                  required
                />
              )}
            </Field>
          </>
        ) : null}
        <Field id="setup-name" label="Host name" hint="What Proxies name in placement.zone.">
          {(aria) => (
            <input {...aria} className={controlClass} value={host.name} onChange={(event) => setHost({ ...host, name: event.target.value })} required />
          )}
        </Field>
        <Field id="setup-address" label="Address" hint="host or host:port of its sshd">
          {(aria) => (
            <input {...aria} className={controlClass} value={host.address} onChange={(event) => setHost({ ...host, address: event.target.value })} required />
          )}
        </Field>
        <Field id="setup-user" label="SSH user" hint="A member of the host's libvirt group.">
          {(aria) => (
            <input {...aria} className={controlClass} value={host.user} onChange={(event) => setHost({ ...host, user: event.target.value })} required />
          )}
        </Field>
        <div className="flex items-end">
          <Button type="submit" tone="primary" disabled={busy !== undefined}>
            Fetch host key
          </Button>
        </div>
      </form>
      {error ? (
        <p role="alert" className="mt-3 text-sm text-red-700">
          {error}
        </p>
      ) : null}

      <ol className="mt-4 space-y-3">
        <StepRow title="1. Host key" testId="setup-step-hostKey" state={hostKey === undefined ? 'pending' : keyReady ? 'ok' : 'failed'}>
          {hostKey ? (
            <HostKeyResult
              step={hostKey}
              trusted={trusted}
              trusting={busy === 'trust'}
              onTrust={() =>
                void guarded('trust', async () => {
                  await trustHostKey({ ...base, address: host.address.trim(), fingerprint: hostKey.hostKey!.fingerprint });
                  setTrusted(true);
                })
              }
            />
          ) : null}
        </StepRow>
        {keyReady ? (
          <li>
            <Button tone="primary" onClick={() => void probe()} disabled={busy !== undefined}>
              {answers.authenticate ? 'Run steps 2–5 again' : 'Continue: log in and look at the host'}
            </Button>
          </li>
        ) : null}
        {probeSteps.map(({ step, title }) => {
          const answer = answers[step];
          return (
            <StepRow key={step} title={title} testId={`setup-step-${step}`} state={state(answer)}>
              {answer?.failure ? <Failure failure={answer.failure} /> : null}
              <Warnings warnings={answer?.warnings} />
              {step === 'libvirt' && answers.libvirt?.ok ? (
                <p className="mt-1 text-sm">
                  libvirt {answers.libvirt.libvirtVersion} on {answers.libvirt.hostname}
                </p>
              ) : null}
              {step === 'resources' && answers.resources?.ok ? (
                <p className="mt-1 text-sm">
                  {counted(answers.resources.pools?.length ?? 0, 'storage pool')}, {counted(answers.resources.bridges?.length ?? 0, 'bridge')}: pick below.
                </p>
              ) : null}
              {step === 'capabilities' && answers.capabilities?.ok ? <p className="mt-1 text-sm">{answers.capabilities.summary}</p> : null}
            </StepRow>
          );
        })}
      </ol>

      {ready && resources?.ok ? <HostChoices resources={resources} choice={choice} onChange={setChoice} /> : null}

      {ready ? (
        <ol className="mt-4 space-y-3">
          <StepRow title="6. Health check" testId="setup-step-check" state={state(answers.check)}>
            {answers.check?.failure ? <Failure failure={answers.check.failure} /> : null}
            {answers.check?.ok ? <p className="mt-1 text-sm text-emerald-800">Reachable: SSH, libvirt and the pool answered.</p> : null}
            <div className="mt-2">
              <Button
                disabled={busy !== undefined || !choice.pool || !choice.bridge}
                onClick={() => void guarded('check', async () => setAnswers({ ...answers, check: await runStep('check', candidate()) }))}
              >
                Run the health check
              </Button>
            </div>
          </StepRow>
        </ol>
      ) : null}

      {checked ? (
        <div className="mt-4 space-y-2">
          <Button
            tone="primary"
            disabled={save.isPending}
            onClick={() => {
              const { provider: providerName, newEntry } = base as { provider: string; newEntry?: { sshKeyFile: string; knownHostsFile: string } };
              const { name, address, user, pool, bridge, virtType } = candidate();
              save.mutate(
                {
                  provider: providerName,
                  host: {
                    name: name!,
                    address,
                    user: user!,
                    bridge: bridge!,
                    ...(pool ? { pool } : {}),
                    ...(virtType ? { virtType } : {}),
                    ...(newEntry ? { newEntry } : {}),
                  },
                },
                { onSuccess: onDone },
              );
            }}
          >
            Save host
          </Button>
          {save.error ? (
            <p role="alert" className="text-sm text-red-700">
              {save.error.message}
            </p>
          ) : null}
        </div>
      ) : null}
    </Panel>
  );
}
