// HTTP requests to the built app from a chosen loopback source address (127.0.0.2, ...), so the
// server sees different clients the way it would on a LAN, and a client can put whatever it likes
// in Host, Origin and the forwarding headers.
import { Agent, request } from 'undici';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

export interface CallOptions {
  /** the local address the connection comes from (default 127.0.0.1) */
  from?: string;
  headers?: Record<string, string>;
  body?: unknown;
}

export class LoopbackClients {
  private readonly agents = new Map<string, Agent>();

  private agent(from: string): Agent {
    let agent = this.agents.get(from);
    if (!agent) {
      agent = new Agent({ localAddress: from });
      this.agents.set(from, agent);
    }
    return agent;
  }

  async call(baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<Reply> {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const response = await request(`${baseUrl}${path}`, {
      method: method as 'GET',
      dispatcher: this.agent(options.from ?? '127.0.0.1'),
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
      body,
    });
    const text = await response.body.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.statusCode, headers: response.headers, text, json };
  }

  async close(): Promise<void> {
    await Promise.all([...this.agents.values()].map((agent) => agent.close()));
  }
}

/** The session cookie's value from a login or password-change answer. */
export function sessionFrom(reply: Reply): string {
  const header = [reply.headers['set-cookie']].flat().join('\n');
  const value = /kvm2_session=([^;]+)/.exec(header)?.[1];
  if (!value) throw new Error(`no session cookie in the answer (${reply.status} ${reply.text.slice(0, 200)})`);
  return value;
}

/** An error answer's message, whichever body shape the API uses. */
export function errorMessage(reply: Reply): string {
  const error = reply.json?.error;
  return typeof error === 'string' ? error : String(error?.message ?? '');
}
