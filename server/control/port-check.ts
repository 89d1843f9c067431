// Whether a TCP port accepts a connection from this server: connect, then close at once without
// sending a byte. The diagnosis uses it to tell "nothing listens" (refused) from "nothing answers"
// (a filter or a VM that is not up) before it probes through the proxy.
import { connect } from 'node:net';

export type PortCheckOutcome = 'open' | 'refused' | 'timeout' | 'unreachable';

export interface PortCheckResult {
  outcome: PortCheckOutcome;
  latencyMs: number;
  /** the socket's error, when there was one */
  message?: string;
}

export type PortCheck = (target: { host: string; port: number; timeoutMs: number }) => Promise<PortCheckResult>;

const outcomeByCode: Record<string, PortCheckOutcome> = {
  ECONNREFUSED: 'refused',
  ETIMEDOUT: 'timeout',
};

export const checkPort: PortCheck = ({ host, port, timeoutMs }) =>
  new Promise((resolve) => {
    const started = performance.now();
    const socket = connect({ host, port });
    const done = (result: Omit<PortCheckResult, 'latencyMs'>) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...result, latencyMs: performance.now() - started });
    };
    const timer = setTimeout(() => done({ outcome: 'timeout', message: `no answer within ${timeoutMs} ms` }), timeoutMs);
    socket.once('connect', () => done({ outcome: 'open' }));
    socket.once('error', (err: NodeJS.ErrnoException) => done({ outcome: outcomeByCode[err.code ?? ''] ?? 'unreachable', message: err.message }));
  });
