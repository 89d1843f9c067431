// The HTTP layer (server/http and the route handlers in app/api) is thin: it calls the named
// services of the runtime (server/runtime/services.ts) and nothing below them. It imports no
// store module and no provider's internals (server/providers/kvm2), and no module there reaches
// for the runtime's store or its control loops. Every import counts, types included: a service
// living in the HTTP layer shows itself by the store types it needs.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');

function filesUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((path) => /\.tsx?$/.test(path))
    .map((path) => join(dir, path));
}

/** Each import or re-export of `file`, as a repo path when it is the project's (`@/x` or relative). */
function importsOf(file: string): string[] {
  const source = readFileSync(join(root, file), 'utf8');
  return [...source.matchAll(/^(?:import|export)\s[^'"]*?from\s+'([^']+)'/gm)].map(({ 1: specifier = '' }) => {
    if (specifier.startsWith('@/')) return specifier.slice(2);
    if (specifier.startsWith('.')) return relative(root, join(root, file, '..', specifier));
    return specifier;
  });
}

const httpLayer = [...filesUnder('server/http'), ...filesUnder('app/api')];
const forbidden = [/^server\/store(\/|$)/, /^server\/providers\/kvm2(\/|$)/, /^server\/runtime\/control-loops$/];
/** What only the composition root may hold: the store and the loops that run on the leader. */
const runtimeInternals = /\bruntime\??\.(store|reconciler|monitor|gc|prober|housekeeping|sampler)\b/;

describe('the HTTP layer', () => {
  it('is found where expected', () => {
    expect(httpLayer).toContain('server/http/route.ts');
    expect(httpLayer).toContain('app/api/proxies/route.ts');
  });

  it('imports no store module, no provider internals and no control loop', () => {
    const offending = httpLayer.flatMap((file) =>
      importsOf(file).flatMap((target) => (forbidden.some((rule) => rule.test(target)) ? [`${file} -> ${target}`] : [])),
    );
    expect(offending).toEqual([]);
  });

  it('reaches for neither the runtime’s store nor its loops', () => {
    const offending = httpLayer.filter((file) => runtimeInternals.test(readFileSync(join(root, file), 'utf8')));
    expect(offending).toEqual([]);
  });
});
