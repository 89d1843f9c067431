// One caller's signal handed to many concurrent RPCs (ListByTag reads the metadata of every domain
// at once) must cost that signal one 'abort' listener, not one per call: past ten, Node prints
// MaxListenersExceededWarning (bench:create printed it). Every call still abandons on the abort.
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { armBudget } from '@/server/libvirt/budget';
import type { RpcError } from '@/server/libvirt/errors';

describe('armBudget with one signal shared by many calls', () => {
  it('puts one listener on the signal, abandons every armed call on abort, and none once cleared', () => {
    const controller = new AbortController();
    const abandoned: string[] = [];
    const budgets = Array.from({ length: 50 }, (_, index) =>
      armBudget({ procedure: `Call${index}`, timeoutMs: Infinity, signal: controller.signal, abandon: (err: RpcError) => abandoned.push(err.message) }),
    );
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    budgets.slice(0, 20).forEach((budget) => budget.clear());
    controller.abort(new Error('stopped'));
    expect(abandoned).toHaveLength(30);
    expect(abandoned[0]).toMatch(/Call20/);
  });

  it('leaves no listener on the signal once every call settled', () => {
    const controller = new AbortController();
    const budgets = Array.from({ length: 12 }, () =>
      armBudget({ procedure: 'Call', timeoutMs: Infinity, signal: controller.signal, abandon: () => undefined }),
    );
    budgets.forEach((budget) => budget.clear());
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
