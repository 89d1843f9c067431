// GET /api/config tells the dashboard what it may offer for each provider (issue 25 item 2): kvm2's
// registration declares its host pages, placement and consoles, its onboarding the Add host wizard;
// a type that declares nothing (the fake) gets none of them, so no page offers what it cannot do.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSummarySchema } from '@/lib/api/config';
import { type ApiHarness, handlers as h, startApi } from './api-harness';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api?.close();
});

describe('the config summary', () => {
  it("carries each provider's capabilities from its type's registration", async () => {
    const answer = await api.call(h.config.GET, '/api/config', 'GET', { session: true });
    expect(answer.status).toBe(200);
    const summary = configSummarySchema.parse(answer.json);
    const capabilities = Object.fromEntries(summary.providers.map((entry) => [entry.name, entry.capabilities]));
    expect(capabilities).toEqual({
      'kvm2-home': { hosts: true, setup: true, placement: true, console: true },
      'fake-1': { hosts: false, setup: false, placement: false, console: false },
    });
  });
});
