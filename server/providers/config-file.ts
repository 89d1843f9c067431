// Writes to the providers config file from the dashboard. One save at a time per file: each save
// re-reads the file under the lock, so a save never works on text another save (or an editor)
// already replaced, and no edit is lost. The edited text must pass the same validation as a load;
// otherwise nothing is written. The previous file is kept as `<file>.bak`, and the new one is
// written to a temp file beside it and renamed over it, so a reader (the config watcher) sees the
// old file or the new one, never half of one.
import { randomBytes } from 'node:crypto';
import { open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { parseProvidersConfig, type ProvidersConfig } from './config';

export interface SavedConfig {
  entries: ProvidersConfig;
  /** the file the previous text went to */
  backup: string;
}

export class ProvidersConfigFile {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly path: string) {}

  /** The file's text now ('' when it does not exist yet). */
  async read(): Promise<string> {
    try {
      return await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
      throw err;
    }
  }

  /**
   * Applies `edit` to the current text and writes the result once it validates. Throws whatever
   * `edit` throws, or ProvidersConfigError naming every problem; the file is untouched then.
   */
  update(edit: (text: string) => string): Promise<SavedConfig> {
    const run = this.queue.then(() => this.apply(edit));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async apply(edit: (text: string) => string): Promise<SavedConfig> {
    const previous = await this.read();
    const next = edit(previous);
    const entries = parseProvidersConfig(next, this.path);
    const mode = await stat(this.path).then(
      (info) => info.mode & 0o777,
      () => 0o640,
    );
    const backup = `${this.path}.bak`;
    await writeFile(backup, previous, { mode });
    await this.replace(next, mode);
    return { entries, backup };
  }

  private async replace(text: string, mode: number): Promise<void> {
    const temp = join(dirname(this.path), `.${basename(this.path)}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      const handle = await open(temp, 'wx', mode);
      try {
        await handle.writeFile(text);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, this.path);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  }
}
