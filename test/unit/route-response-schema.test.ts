// route({ response }) names the lib/api schema of a route's answer. The compiler holds the handler
// to it (the `@ts-expect-error` below fails `tsc` when it stops doing so), and outside production
// every answer is checked against it at run time too: one that drifted from the contract is a 500
// whose cause is in the log, not a body the browser's parse would reject later. The body sent is
// the handler's own, byte for byte.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { route } from '@/server/http/route';
import { startApi, type ApiHarness } from './api-harness';

const answerSchema = z.strictObject({ name: z.string(), replicas: z.number().int() });

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
}, 60_000);
afterAll(async () => {
  await api?.close();
});

describe('a route with a response schema', () => {
  it('answers what the handler returned when it matches the schema', async () => {
    const handler = route({ access: 'admin', response: answerSchema }, () => ({ name: 'crawl', replicas: 3 }));
    const answer = await api.call(handler, '/api/example', 'GET', { session: true });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ name: 'crawl', replicas: 3 });
  });

  it('answers 500 outside production when the answer does not match, and logs which field', async () => {
    const drifted = { name: 'crawl', replicas: '3', extra: true } as unknown as z.input<typeof answerSchema>;
    const handler = route({ access: 'admin', response: answerSchema }, () => drifted);
    const answer = await api.call(handler, '/api/example', 'GET', { session: true });
    expect(answer.status).toBe(500);
    expect(answer.json).toEqual({ error: { code: 'ERR_INTERNAL', message: 'internal error' } });
    const logged = api.logs.filter((line) => line.includes('does not match its lib/api schema')).join('\n');
    expect(logged).toContain('replicas');
    expect(logged).toContain('/api/example');
  });

  it('leaves a Response the handler built as it is', async () => {
    const handler = route({ access: 'admin', response: answerSchema }, () => new Response('plain', { status: 202 }));
    const answer = await api.call(handler, '/api/example', 'GET', { session: true });
    expect(answer.status).toBe(202);
  });

  it('is held to the schema by the compiler', () => {
    // Never called: the compiler's check is the point.
    const typed = () =>
      route(
        { access: 'admin', response: answerSchema },
        // @ts-expect-error `replicas` must be a number
        () => ({ name: 'crawl', replicas: '3' }),
      );
    expect(typed).toBeTypeOf('function');
  });
});
