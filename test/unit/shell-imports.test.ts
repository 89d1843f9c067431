// What every signed-in page loads before its own code: the dashboard layout (the live stream and the
// app shell) and everything it imports. The live cache there needs only query keys; importing a
// page's query module for them put that page's hooks and response schemas in every page's first
// load (issue 26 item 2); the same for the Proxies page and the sets' code. Followed through the
// source's static imports, as the bundler does (an import() is a lazy chunk and is not followed).
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');

function resolveModule(specifier: string): string | undefined {
  if (!specifier.startsWith('@/')) return undefined; // packages: not ours to check here
  const base = join(root, specifier.slice(2));
  return ['.ts', '.tsx', '/index.ts', '/index.tsx'].map((ext) => base + ext).find((path) => existsSync(path));
}

/** Every project module reachable from `entry` through static (non-type) imports, as repo paths. */
function staticImports(entry: string): Set<string> {
  const seen = new Set<string>();
  const queue = [join(root, entry)];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    const path = relative(root, file);
    if (seen.has(path)) continue;
    seen.add(path);
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(/^(?:import|export)\s+(?!type\b)[^'"]*?from\s+'([^']+)'/gm)) {
      const specifier = match[1] as string;
      const resolved = specifier.startsWith('.') ? resolveModule(`@/${relative(root, join(file, '..', specifier))}`) : resolveModule(specifier);
      if (resolved) queue.push(resolved);
    }
  }
  return seen;
}

describe('the dashboard layout (every signed-in page)', () => {
  it("loads no page's query module, only the shared query keys", () => {
    const modules = staticImports('app/(dashboard)/layout.tsx');
    expect(modules).toContain('components/app/live-cache.ts');
    expect(modules).toContain('components/query-keys.ts');
    expect([...modules].filter((path) => /^components\/[^/]+\/(?:queries|setup-queries)\.ts$/.test(path))).toEqual([]);
  });

  it("loads the logout answer's schema alone, not the password and token schemas beside it", () => {
    const modules = staticImports('app/(dashboard)/layout.tsx');
    expect(modules).toContain('lib/api/logout.ts');
    expect(modules).not.toContain('lib/api/auth.ts');
  });
});

describe('the Proxies page', () => {
  it("loads neither the sets' query module nor the set spec's schemas before it shows the table (the bulk bar loads after)", () => {
    const modules = staticImports('app/(dashboard)/proxies/page.tsx');
    expect(modules).toContain('components/proxies/proxies-table.tsx');
    expect([...modules].filter((path) => ['components/proxysets/queries.ts', 'lib/api/proxyset-spec.ts', 'lib/api/proxysets.ts'].includes(path))).toEqual([]);
  });

  it("has no next/dynamic in its first load: that loader's own code is about 1.4 KB gzipped (its lazy parts use React's lazy)", () => {
    const modules = new Set([...staticImports('app/(dashboard)/layout.tsx'), ...staticImports('app/(dashboard)/proxies/page.tsx')]);
    expect([...modules].filter((path) => /from 'next\/dynamic'/.test(readFileSync(join(root, path), 'utf8')))).toEqual([]);
  });
});

describe('the Proxy and set forms', () => {
  it.each(['proxies/new', 'proxies/[name]/edit', 'sets/new', 'sets/[name]/edit'])(
    '%s loads the yaml package (about 31 KB gzipped) only when its cloud-init fields ask for the YAML check',
    (page) => {
      const modules = staticImports(`app/(dashboard)/${page}/page.tsx`);
      expect(modules).toContain('components/proxies/cloud-init-check.ts');
      expect(modules).not.toContain('components/proxies/cloud-config-yaml.ts');
      expect([...modules].filter((path) => /from 'yaml'/.test(readFileSync(join(root, path), 'utf8')))).toEqual([]);
    },
  );
});
