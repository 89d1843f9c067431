// The fake libvirt the provider's unit tests run on is checked against the procedure table the
// real client is derived from (server/libvirt/procedures.ts): it implements no call the table
// lacks, takes each call's arguments as the client does (one options object, encodable by the
// procedure's XDR shape), and has every call the kvm2 provider makes. Without this a fake call
// could drift from the wire and the unit tests pass against a libvirt that does not exist.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { errorMessage } from '@/lib/error-message';
import { libvirtMethods, procedures } from '@/server/libvirt';
import type { Shape } from '@/server/libvirt/xdr';
import { FakeConnection, FakeHypervisor } from '../fakes/fake-libvirt';
import { arbitraryFor } from './xdr-arbitrary';

// Members of FakeConnection that steer the fake (the tests' handles), not libvirt calls.
const fakeControls = new Set(['constructor', 'kill', 'subscriptionCount']);
const fakeCalls = Object.getOwnPropertyNames(FakeConnection.prototype).filter((name) => !fakeControls.has(name));

/** Every .ts file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** The libvirt calls the kvm2 provider's code makes (`.domainCreate(` and the like). */
function callsMadeBy(dirs: string[]): string[] {
  const methods = Object.keys(libvirtMethods);
  const made = new Set<string>();
  for (const file of dirs.flatMap(sources)) {
    const text = readFileSync(file, 'utf8');
    for (const method of methods) if (text.includes(`.${method}(`)) made.add(method);
  }
  return [...made].sort();
}

describe('the fake libvirt against the procedure table', () => {
  it('implements only calls the table declares', () => {
    expect(fakeCalls.filter((name) => !Object.hasOwn(libvirtMethods, name))).toEqual([]);
  });

  it("takes each call's arguments as one options object, as the client does", () => {
    const positional = fakeCalls.filter((name) => (FakeConnection.prototype as unknown as Record<string, (...args: unknown[]) => unknown>)[name]!.length > 1);
    expect(positional).toEqual([]);
  });

  // Each call whose method is the procedure's own: the fake encodes what it was given with the
  // row's argument shape, so arguments the wire could not carry fail in the unit tests too, and
  // a fake that reads its arguments another way (positionally, under other names) fails here.
  const ownProcedureCalls = fakeCalls.filter((name) => libvirtMethods[name as keyof typeof libvirtMethods] === name);
  const withArguments = ownProcedureCalls.filter((name) => procedures[name as keyof typeof procedures].args.info.kind === 'struct');
  const encodeRefusal = (name: string) => `${name} was called with arguments its procedure row (server/libvirt/procedures.ts) cannot encode`;

  /** Calls `name` on a fresh fake with `options` (an upload with an empty source) and drains a download. */
  async function callFake(name: string, options: Record<string, unknown>): Promise<unknown> {
    const connection = new FakeConnection(new FakeHypervisor());
    const call = (connection as unknown as Record<string, (options: unknown) => unknown>)[name]!.bind(connection);
    const upload = procedures[name as keyof typeof procedures].stream === 'upload';
    const result = call(upload ? { ...options, source: (async function* () {})() } : options);
    if (result && typeof result === 'object' && Symbol.asyncIterator in result) for await (const _ of result as AsyncIterable<unknown>);
    return result;
  }

  it.each(withArguments)('%s takes the arguments its procedure row describes, and refuses others', async (name) => {
    const shape = procedures[name as keyof typeof procedures].args as Shape<unknown>;
    const fields = (shape.info as { fields: ReadonlyArray<readonly [string, unknown]> }).fields;
    const valid = fc.sample(arbitraryFor(shape), { numRuns: 1, seed: 11 })[0] as Record<string, unknown>;
    // Valid arguments get past the check (the fake may still answer ErrNoDomain and the like).
    const outcome = await callFake(name, valid).then(
      () => 'answered',
      (err: unknown) => errorMessage(err),
    );
    expect(outcome).not.toContain(encodeRefusal(name));
    const wrong = Object.fromEntries(fields.map(([field]) => [field, Symbol(field)]));
    await expect(callFake(name, wrong)).rejects.toThrow(encodeRefusal(name));
  });

  it('has every call the kvm2 provider makes', () => {
    const made = callsMadeBy(['server/providers/kvm2', 'server/onboarding']);
    expect(made.length).toBeGreaterThan(30);
    expect(made.filter((method) => !fakeCalls.includes(method))).toEqual([]);
  });
});
