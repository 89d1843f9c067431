'use client';
// The Proxy VM's serial console in a terminal (xterm.js): the boot log the server buffered, then
// live output; what is typed goes to the guest. When another client holds the console (an admin's
// `virsh console`) it says so and offers Take over, which disconnects that client.
import '@xterm/xterm/css/xterm.css';
import type { Terminal } from '@xterm/xterm';
import { useEffect, useRef, useState } from 'react';
import { Button } from '@/components/ui/button';
import type { ConsoleStatusView } from '@/lib/api/console';
import { sendConsoleInput, streamConsole, takeOverConsole } from './console-stream';
import { errorMessage } from '@/lib/error-message';

const stateLabel: Record<ConsoleStatusView['state'], string> = {
  opening: 'Opening the console…',
  live: 'Live',
  busy: 'Another client holds the console',
  closed: 'Console closed',
};

export default function ConsoleTerminal({ name }: { name: string }) {
  const holder = useRef<HTMLDivElement>(null);
  const [status, setStatus] = useState<ConsoleStatusView>({ state: 'opening' });
  const [problem, setProblem] = useState<string>();
  const [taking, setTaking] = useState(false);
  // Bumped to reconnect the stream.
  const [connection, setConnection] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    let terminal: Terminal | undefined;
    let typing = Promise.resolve();
    let last: ConsoleStatusView | undefined;
    void (async () => {
      const { Terminal: XTerm } = await import('@xterm/xterm');
      if (controller.signal.aborted || !holder.current) return;
      const term = new XTerm({ cols: 100, rows: 24, scrollback: 5000, fontSize: 13, theme: { background: '#0f172a', foreground: '#e2e8f0' } });
      terminal = term;
      term.open(holder.current);
      term.onData((data) => {
        typing = typing.then(() => sendConsoleInput(name, data)).catch((err: unknown) => setProblem(errorMessage(err)));
      });
      await streamConsole(
        name,
        {
          snapshot: (bytes) => {
            term.reset();
            term.write(bytes);
          },
          output: (bytes) => term.write(bytes),
          status: (next) => {
            last = next;
            setStatus(next);
          },
        },
        controller.signal,
      );
      // A stream the server closed with a reason (this page read too slowly) keeps that reason.
      if (!controller.signal.aborted && last?.state !== 'closed') setStatus({ state: 'closed', message: 'the server ended the stream' });
    })().catch((err: unknown) => {
      if (controller.signal.aborted) return;
      setStatus({ state: 'closed', message: errorMessage(err) });
    });
    return () => {
      controller.abort();
      terminal?.dispose();
    };
  }, [name, connection]);

  const reconnect = () => {
    setProblem(undefined);
    setStatus({ state: 'opening' });
    setConnection((count) => count + 1);
  };

  const takeOver = async () => {
    setTaking(true);
    setProblem(undefined);
    try {
      setStatus(await takeOverConsole(name));
    } catch (err) {
      setProblem(errorMessage(err));
    } finally {
      setTaking(false);
    }
  };

  return (
    <div className="space-y-3">
      <div role="status" data-console-state={status.state} className="flex flex-wrap items-center gap-3 text-sm">
        <span className={status.state === 'live' ? 'font-medium text-emerald-800' : 'font-medium text-slate-800'}>{stateLabel[status.state]}</span>
        {status.message ? <span className="break-words text-slate-700">{status.message}</span> : null}
        {status.state === 'busy' ? (
          <Button tone="danger" disabled={taking} onClick={() => void takeOver()}>
            {taking ? 'Taking over…' : 'Take over'}
          </Button>
        ) : null}
        {status.state === 'closed' ? <Button onClick={reconnect}>Reconnect</Button> : null}
      </div>
      {problem ? (
        <p role="alert" className="text-sm text-red-800">
          {problem}
        </p>
      ) : null}
      <div ref={holder} data-testid="console-terminal" className="overflow-x-auto rounded-md bg-slate-900 p-2" />
    </div>
  );
}
