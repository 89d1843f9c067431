// The budgets table (the spec's *Timeouts and connections*) and the wrapper that gives every
// LibvirtAPI call its budget: the table's, or the caller's own when shorter; the signal passes.
import { describe, expect, it } from 'vitest';
import { budgetFor, defaultBudgets, withBudgets } from '@/server/providers/kvm2/backend';
import type { LibvirtAPI } from '@/server/providers/kvm2/libvirt-api';

const MiB = 1024 * 1024;
const dom = { name: 'proxy-a', uuid: Buffer.alloc(16), id: 1 };
const vol = { pool: 'default', name: 'v', key: 'k' };
const source = (async function* () {})();

describe('the budgets table', () => {
  it('holds the spec values', () => {
    expect(defaultBudgets).toEqual({
      dialMs: 10_000,
      rpcMs: 30_000,
      domainCreateMs: 90_000,
      smallUploadMs: 60_000,
      smallUploadMaxBytes: 16 * MiB,
      imageTransferMs: 20 * 60_000,
      runningWaitMs: 15_000,
      runningPollMs: 500,
      headMs: 30_000,
      connectCloseMs: 5_000,
    });
  });

  it.each([
    ['an ordinary RPC', () => budgetFor('domainLookupByName', { name: 'proxy-a' }), 30_000],
    ['DomainCreate', () => budgetFor('domainCreate', { dom }), 90_000],
    ['an upload of the seed (16 MiB at most)', () => budgetFor('storageVolUpload', { vol, source, length: 16 * MiB }), 60_000],
    ['an upload of the 64-byte marker', () => budgetFor('storageVolUpload', { vol, source, length: 64 }), 60_000],
    ['an upload of an image', () => budgetFor('storageVolUpload', { vol, source, length: 16 * MiB + 1 }), 20 * 60_000],
    ['an upload of unknown length', () => budgetFor('storageVolUpload', { vol, source }), 20 * 60_000],
    ['a download', () => budgetFor('storageVolDownload', { vol }), 20 * 60_000],
  ] as const)('%s gets its budget', (_what, budget, want) => {
    expect(budget()).toBe(want);
  });
});

describe('withBudgets', () => {
  function recorder() {
    const seen: Array<{ method: string; options: Record<string, unknown> }> = [];
    const api = {
      domainLookupByName: async (options: Record<string, unknown>) => {
        seen.push({ method: 'domainLookupByName', options });
        return dom;
      },
      connectGetHostname: async (options: Record<string, unknown>) => {
        seen.push({ method: 'connectGetHostname', options });
        return 'hv';
      },
      domainCreate: async (options: Record<string, unknown>) => {
        seen.push({ method: 'domainCreate', options });
      },
    } as unknown as LibvirtAPI;
    return { seen, api };
  }

  it("sets the table's budget on calls that name none, and keeps the caller's signal", async () => {
    const { seen, api } = recorder();
    const signal = new AbortController().signal;
    const budgeted = withBudgets(api);
    await budgeted.domainLookupByName({ name: 'proxy-a', signal });
    await budgeted.connectGetHostname();
    await budgeted.domainCreate({ dom });
    expect(seen).toEqual([
      { method: 'domainLookupByName', options: { name: 'proxy-a', signal, timeoutMs: 30_000 } },
      { method: 'connectGetHostname', options: { timeoutMs: 30_000 } },
      { method: 'domainCreate', options: { dom, timeoutMs: 90_000 } },
    ]);
  });

  it("takes the caller's budget when it is shorter, never a longer one", async () => {
    const { seen, api } = recorder();
    const budgeted = withBudgets(api, { ...defaultBudgets, rpcMs: 1_000 });
    await budgeted.connectGetHostname({ timeoutMs: 200 });
    await budgeted.connectGetHostname({ timeoutMs: 60_000 });
    expect(seen.map((call) => call.options.timeoutMs)).toEqual([200, 1_000]);
  });
});
