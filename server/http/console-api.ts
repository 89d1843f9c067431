// A Proxy's serial console for the dashboard: a Server-Sent Events stream of its output (the
// buffer first, then live), keystrokes, and take-over. Route handlers in Next.js cannot upgrade a
// request to a WebSocket, so output streams as SSE and input goes by POST; both are ordinary
// requests, authenticated and Origin-checked like every route. Keystrokes are never logged.
import type { ConsoleEventName, ConsoleInputResult, ConsoleStatusView } from '@/lib/api/console';
import { liveHeartbeatMs } from '@/lib/api/live';
import type { RouteServices } from '@/server/runtime';
import { UnsupportedOperationError } from '@/server/errors';
import { liveStreamHeaders } from './live-stream';

/** Throws unless the Proxy exists, has a VM and its provider (when running) can open consoles. */
async function checkConsoleable(services: RouteServices, name: string): Promise<void> {
  const view = await services.proxies.get(name);
  if (view.mode !== 'Managed' || !view.provider) throw new UnsupportedOperationError(`Proxy ${JSON.stringify(name)} is Static: it has no VM, so no console`);
  const provider = services.providers.get(view.provider);
  if (provider && !provider.console) throw new UnsupportedOperationError(`provider ${JSON.stringify(view.provider)} (${provider.type}) cannot open consoles`);
}

/**
 * Unread bytes one console stream may queue before it is closed: a page that stopped reading (a
 * sleeping laptop, a throttled tab) while the guest floods its console would otherwise hold
 * everything the guest printed since. Room for the snapshot (the 256 KiB buffer, base64) and
 * several times as much again; a reconnect starts over from the buffer.
 */
export const consoleQueueLimitBytes = 2 * 1024 * 1024;

const tooSlow: ConsoleStatusView = {
  state: 'closed',
  message: `this page read the console more slowly than the VM printed (more than ${consoleQueueLimitBytes / (1024 * 1024)} MiB unread), so the server closed its stream; reconnect to start again from the buffered output`,
};

export interface ConsoleStreamOptions {
  /** aborts when the client disconnects */
  signal: AbortSignal;
  /** asked at each keepalive: false once the session is logged out, which ends the stream */
  authorised: () => boolean | Promise<boolean>;
}

/** The console's SSE stream; ends when the client goes or its session does. */
export async function consoleStream(services: RouteServices, name: string, options: ConsoleStreamOptions): Promise<Response> {
  const { signal, authorised } = options;
  await checkConsoleable(services, name);
  const encoder = new TextEncoder();
  let finish = () => {};
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        let open = true;
        const write = (text: string) => {
          if (!open) return;
          try {
            controller.enqueue(encoder.encode(text));
          } catch {
            finish();
            return;
          }
          // Past the bound: one last event, over it, says why, and the stream ends (the others go on).
          if ((controller.desiredSize ?? 0) < 0) {
            try {
              controller.enqueue(encoder.encode(`event: status\ndata: ${JSON.stringify(tooSlow)}\n\n`));
            } catch {
              // cancelled by the reader meanwhile
            }
            finish();
          }
        };
        const send = (event: ConsoleEventName, data: unknown) => write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
        const watch = services.consoles.watch(name, {
          output: (chunk) => send('output', { data: chunk.toString('base64') }),
          status: (status) => send('status', status satisfies ConsoleStatusView),
        });
        // A comment now and then keeps reverse proxies from closing a quiet stream.
        const keepalive = setInterval(
          () => void Promise.resolve(authorised()).then((holds) => (holds ? write(': keepalive\n\n') : finish()), finish),
          liveHeartbeatMs,
        );
        finish = () => {
          if (!open) return;
          open = false;
          clearInterval(keepalive);
          signal.removeEventListener('abort', finish);
          watch.stop();
          try {
            controller.close();
          } catch {
            // already closed by the client
          }
        };
        signal.addEventListener('abort', finish);
        send('snapshot', { data: watch.snapshot.toString('base64') });
        send('status', watch.status satisfies ConsoleStatusView);
        if (signal.aborted) finish();
      },
      cancel() {
        finish();
      },
    },
    { highWaterMark: consoleQueueLimitBytes, size: (chunk) => chunk.byteLength },
  );
  return new Response(body, { headers: liveStreamHeaders });
}

export async function consoleInput(services: RouteServices, name: string, data: string): Promise<ConsoleInputResult> {
  await checkConsoleable(services, name);
  const bytes = Buffer.from(data, 'utf8');
  await services.consoles.input(name, bytes);
  return { sentBytes: bytes.length };
}

export async function consoleTakeover(services: RouteServices, name: string): Promise<ConsoleStatusView> {
  await checkConsoleable(services, name);
  return services.consoles.takeOver(name);
}
