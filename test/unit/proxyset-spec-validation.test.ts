import { describe, expect, it } from 'vitest';
import { durationMs, proxySetCreateSchema, proxySetScaleSchema, proxySetUpdateSchema } from '@/lib/api/proxyset-spec';
import { fieldErrors } from '@/lib/proxy-spec';

const template = { provider: 'kvm2-home', placement: { machineType: 'small', image: 'debian-13' }, cloudInit: '#cloud-config\n' };
const set = { name: 'crawl', template, replicas: 3 };

function errorsOf(input: unknown, schema: typeof proxySetCreateSchema | typeof proxySetUpdateSchema = proxySetCreateSchema) {
  const parsed = schema.safeParse(input);
  return parsed.success ? [] : fieldErrors(parsed.error);
}

describe('the ProxySet schema', () => {
  it('fills the defaults: ready within 10m, a budget of replicas per 30m, 5m host-down grace, surge 1, unavailable 0, not paused', () => {
    expect(proxySetCreateSchema.parse(set)).toEqual({
      name: 'crawl',
      template: { ...template, port: 3128, labels: {} },
      replicas: 3,
      readyTimeout: '10m',
      replacementBudget: { window: '30m' },
      hostDownGrace: '5m',
      maxSurge: 1,
      maxUnavailable: 0,
      paused: false,
    });
  });

  it('reads durations as hours, minutes and seconds', () => {
    expect([durationMs('10m'), durationMs('90s'), durationMs('1h30m'), durationMs('2h'), durationMs(''), durationMs('10'), durationMs('5 m')]).toEqual([
      600_000,
      90_000,
      5_400_000,
      7_200_000,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it.each([
    ['a name too long for its members', { ...set, name: 'a'.repeat(58) }, 'name'],
    ['a name with capitals', { ...set, name: 'Crawl' }, 'name'],
    ['the reserved name preview', { ...set, name: 'preview' }, 'name'],
    ['no replicas', { ...set, replicas: undefined }, 'replicas'],
    ['negative replicas', { ...set, replicas: -1 }, 'replicas'],
    ['fractional replicas', { ...set, replicas: 1.5 }, 'replicas'],
    ['replicas over 1000', { ...set, replicas: 1001 }, 'replicas'],
    ['no template', { ...set, template: undefined }, 'template'],
    ['a zone in the template', { ...set, template: { ...template, placement: { ...template.placement, zone: 'lab1' } } }, 'template.placement.zone'],
    ['a template without machineType', { ...set, template: { ...template, placement: { image: 'x' } } }, 'template.placement.machineType'],
    ['a template without provider', { ...set, template: { ...template, provider: undefined } }, 'template.provider'],
    ['a template mode (sets are Managed)', { ...set, template: { ...template, mode: 'Managed' } }, 'template.mode'],
    ['the proxyset label in the template', { ...set, template: { ...template, labels: { proxyset: 'other' } } }, 'template.labels'],
    ['a bad port', { ...set, template: { ...template, port: 0 } }, 'template.port'],
    ['a readyTimeout that is no duration', { ...set, readyTimeout: '10 minutes' }, 'readyTimeout'],
    ['a readyTimeout under 30s', { ...set, readyTimeout: '5s' }, 'readyTimeout'],
    ['a numeric hostDownGrace', { ...set, hostDownGrace: 300 }, 'hostDownGrace'],
    ['a negative budget', { ...set, replacementBudget: { max: -1 } }, 'replacementBudget.max'],
    ['a budget window of seconds', { ...set, replacementBudget: { max: 3, window: '10s' } }, 'replacementBudget.window'],
    ['an unknown budget field', { ...set, replacementBudget: { per: '1h' } }, 'replacementBudget.per'],
    ['neither surge nor unavailability', { ...set, maxSurge: 0, maxUnavailable: 0 }, 'maxSurge'],
    ['paused as a string', { ...set, paused: 'yes' }, 'paused'],
    ['an unknown field', { ...set, minReady: 2 }, 'minReady'],
  ])('refuses %s, naming %s', (_, input, path) => {
    expect(errorsOf(input).map((error) => error.path)).toContain(path);
  });

  it('says why a template may not name a zone', () => {
    const errors = errorsOf({ ...set, template: { ...template, placement: { ...template.placement, zone: 'lab1' } } });
    expect(errors).toContainEqual({ path: 'template.placement.zone', message: expect.stringContaining('places its members itself') });
  });

  it('takes a PUT without cloud-init (the stored one stays) and without a name', () => {
    const { cloudInit: _, ...withoutCloudInit } = template;
    expect(errorsOf({ template: withoutCloudInit, replicas: 2 }, proxySetUpdateSchema)).toEqual([]);
    expect(proxySetUpdateSchema.parse({ template: withoutCloudInit, replicas: 2 }).template.cloudInit).toBeUndefined();
    expect(errorsOf({ ...set }, proxySetUpdateSchema).map((error) => error.path)).toEqual(['name']);
  });

  it('scales to a count only', () => {
    expect(proxySetScaleSchema.safeParse({ replicas: 0 }).success).toBe(true);
    expect(proxySetScaleSchema.safeParse({ replicas: '2' }).success).toBe(false);
  });
});
