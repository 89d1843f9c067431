// Child processes of the process-level tests (crash safety, replica failover, SIGTERM under a
// host handler): bundled once (esbuild, which tsx brings along) next to a node_modules link, so a
// start costs about a second instead of the three that tsx's per-file loading takes here; they
// talk in `<tag> <json>` lines.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, symlinkSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { basename, join } from 'node:path';
import type { BuildOptions } from 'esbuild';

const root = join(import.meta.dirname, '..', '..');

/** Bundles `entry` (a path under the repository) into `outDir`; returns the script to run with node. */
export function bundleChild(entry: string, outDir: string): Promise<string> {
  return bundle({ entryPoints: [join(root, entry)] }, { outDir, outfile: join(outDir, basename(entry).replace(/\.ts$/, '.mjs')) });
}

/** Bundles a child written inline (TypeScript `source`, imports as in the repository) into `outDir` as `<name>.mjs`. */
export function bundleChildSource(options: { source: string; name: string; outDir: string }): Promise<string> {
  const { source, name, outDir } = options;
  return bundle({ stdin: { contents: source, resolveDir: root, loader: 'ts', sourcefile: `${name}.ts` } }, { outDir, outfile: join(outDir, `${name}.mjs`) });
}

async function bundle(input: Pick<BuildOptions, 'entryPoints' | 'stdin'>, output: { outDir: string; outfile: string }): Promise<string> {
  const { build } = await import('esbuild');
  await build({
    ...input,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    alias: { '@': root },
    outfile: output.outfile,
    logLevel: 'warning',
  });
  if (!existsSync(join(output.outDir, 'node_modules'))) symlinkSync(join(root, 'node_modules'), join(output.outDir, 'node_modules'));
  return output.outfile;
}

export interface ChildLine {
  tag: string;
  value: unknown;
}

export interface Child {
  process: ChildProcess;
  lines: ChildLine[];
  /** the value of the first line tagged `tag` (a `stuck` or `error` line fails the wait) */
  waitFor: (tag: string, timeoutMs: number) => Promise<unknown>;
  /** the first line after the first `from` lines that `matches` */
  waitForLine: (matches: (line: ChildLine) => boolean, options: { from?: number; timeoutMs: number; what: string }) => Promise<ChildLine>;
  /** writes one JSON line to the child's stdin */
  send: (message: unknown) => void;
  exited: Promise<number | null>;
}

export function startChild(script: string, env: Record<string, string>): Child {
  const child = spawn(process.execPath, [script], { cwd: root, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: Child['lines'] = [];
  const waiters: Array<() => void> = [];
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const space = line.indexOf(' ');
    const tag = space < 0 ? line : line.slice(0, space);
    lines.push({ tag, value: space < 0 ? undefined : JSON.parse(line.slice(space + 1)) });
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitForLine: Child['waitForLine'] = (matches, { from = 0, timeoutMs, what }) =>
    new Promise<ChildLine>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no ${what} within ${timeoutMs} ms; lines: ${JSON.stringify(lines)}; stderr: ${stderr.slice(-2000)}`)),
        timeoutMs,
      );
      const check = () => {
        const failure = lines.find((line) => line.tag === 'stuck' || line.tag === 'error');
        if (failure) {
          clearTimeout(timer);
          return reject(new Error(`child ${failure.tag}: ${JSON.stringify(failure.value)}`));
        }
        const found = lines.slice(from).find(matches);
        if (found) {
          clearTimeout(timer);
          return resolve(found);
        }
        waiters.push(check);
      };
      check();
      void exited.then(() => setTimeout(check, 0));
    });
  const waitFor = async (tag: string, timeoutMs: number) => (await waitForLine((line) => line.tag === tag, { timeoutMs, what: `"${tag}"` })).value;
  const send = (message: unknown) => void child.stdin?.write(`${JSON.stringify(message)}\n`);
  return { process: child, lines, waitFor, waitForLine, send, exited };
}
