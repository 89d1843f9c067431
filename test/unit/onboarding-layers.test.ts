// Onboarding is its own part (issue 25 item 2): the control plane and the runtime reach SSH and the
// kvm2 wizard steps only through server/onboarding's registration, and onboarding's generic part
// (the type dispatch, the config saves, the errors) knows no provider's internals and asks the
// control plane nothing by import: "Proxies on this host" comes in as a callback. Direct imports,
// read as text.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');

/** `dir`'s own .ts files (not its subdirectories) with the modules each imports. */
function importsIn(dir: string): Array<{ file: string; specifiers: string[] }> {
  return readdirSync(join(root, dir), { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => {
      const source = readFileSync(join(root, dir, entry.name), 'utf8');
      const specifiers = [...source.matchAll(/^(?:import|export)\s[^'"]*?from\s+'([^']+)'/gm)].map((match) => match[1] as string);
      return { file: `${dir}/${entry.name}`, specifiers };
    });
}

const offending = (dir: string, forbidden: RegExp) =>
  importsIn(dir).flatMap(({ file, specifiers }) => specifiers.filter((specifier) => forbidden.test(specifier)).map((specifier) => `${file} -> ${specifier}`));

describe('onboarding', () => {
  it('is not imported by the control plane, which imports no SSH and no kvm2 internals either', () => {
    expect(offending('server/control', /^@\/server\/(onboarding|ssh|providers\/kvm2)(\/|$)/)).toEqual([]);
  });

  it('reaches the runtime only through its registration, host setup and host config', () => {
    expect(offending('server/runtime', /^@\/server\/(onboarding\/kvm2|providers\/kvm2|ssh\/(?!dial-limiter$))/)).toEqual([]);
  });

  it('keeps its generic part free of kvm2, SSH, libvirt, the control plane and the store', () => {
    expect(importsIn('server/onboarding').length).toBeGreaterThan(0);
    expect(offending('server/onboarding', /^@\/server\/(providers\/kvm2|ssh|libvirt|control|store)(\/|$)|^\.\/kvm2\/(?!onboarding$)/)).toEqual([]);
  });
});
