// Only the leader runs the control loops and touches hypervisors: the loops start when it leads
// and stop when it steps down (restartable), and a provider call made by a replica whose lease has
// lapsed is refused before it reaches the provider, the step-down happening first.
import { describe, expect, it } from 'vitest';
import { FencedProviders, NotLeaderError } from '@/server/cluster/fenced-providers';
import { LeaderLoops } from '@/server/cluster/leader-loops';
import { providerSetOf } from '@/test/fakes/control-plane';
import { FakeProvider } from '@/test/fakes/fake-provider';

function recordingLoop(log: string[], name: string) {
  return {
    start: () => void log.push(`${name} start`),
    stop: async () => void log.push(`${name} stop`),
  };
}

describe('leader-only loops', () => {
  it('start together when leadership is gained, stop together (synchronously) when lost, and start again', async () => {
    const log: string[] = [];
    const loops = new LeaderLoops(() => undefined);
    loops.add('reconciler', recordingLoop(log, 'reconciler'));
    loops.add('monitor', recordingLoop(log, 'monitor'));
    await loops.start();
    const stopping = loops.stop();
    // Every stop was called before stop() returned.
    expect(log).toEqual(['reconciler start', 'monitor start', 'reconciler stop', 'monitor stop']);
    const restarted = loops.start();
    await stopping;
    await restarted;
    expect(loops.active).toBe(true);
    expect(log.slice(4)).toEqual(['reconciler start', 'monitor start']);
    // A loop added later (say, a stats sampler) joins the running set at once.
    loops.add('sampler', recordingLoop(log, 'sampler'));
    expect(log.at(-1)).toBe('sampler start');
  });

  it('refuse provider calls once the replica no longer leads, without reaching the provider', async () => {
    const provider = new FakeProvider({ name: 'fake-1' });
    let leads = true;
    const steppedDown: string[] = [];
    const fenced = new FencedProviders(await providerSetOf([provider]), () => {
      if (!leads) steppedDown.push('checked');
      return leads;
    });
    const seen = fenced.get('fake-1')!;
    await seen.create(
      { name: 'proxy-a', uid: 'u1', placement: { zone: 'host-a', machineType: 'small', image: 'debian-13' }, cloudInit: Buffer.from(''), port: 3128 },
      {},
    );
    leads = false;
    await expect(async () => seen.get('fake/proxy-a', {})).rejects.toThrow(NotLeaderError);
    expect(() => fenced.list()[0]!.check({})).toThrow(NotLeaderError);
    expect(provider.callsOf('get')).toEqual([]);
    expect(provider.callsOf('check')).toEqual([]);
    expect(provider.callsOf('create')).toHaveLength(1);
    expect(steppedDown).toEqual(['checked', 'checked']);
  });
});
