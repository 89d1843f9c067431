// No component decides what to offer from a provider's type (issue 25 item 2): the config summary's
// capabilities say it (lib/api/config.ts), so a new provider type needs no component changed. Read
// as text, as a reviewer would grep: a comparison of a `.type` with a provider type's name, or a
// provider's `.type` compared at all.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const typeChecks = [
  /['"]kvm2['"]\s*[!=]==|[!=]==\s*['"]kvm2['"]/,
  /\b(?:provider|entry|summary|config)\??\.type\s*[!=]==/,
  /[!=]==\s*(?:provider|entry|summary|config)\??\.type\b/,
];

describe('components', () => {
  it("never check a provider's type; they read its capabilities", () => {
    const offenders = sourceFiles(join(root, 'components')).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, index) => (typeChecks.some((pattern) => pattern.test(line)) ? [`${relative(root, file)}:${index + 1}: ${line.trim()}`] : [])),
    );
    expect(offenders).toEqual([]);
  });
});
