// Tests that run a system tool (isoinfo, blkid, python3) name the Debian package that provides it
// when it is missing, instead of failing with a bare ENOENT deep inside a test.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export class MissingToolError extends Error {
  constructor(
    readonly command: string,
    readonly debianPackage: string,
  ) {
    super(
      `${command} is not on PATH: install the Debian package ${debianPackage} ` +
        `(apt-get install ${debianPackage}; \`npm test\` installs it through test/lab/install-packages.sh)`,
    );
    this.name = 'MissingToolError';
  }
}

/** The absolute path of COMMAND on PATH; throws MissingToolError naming DEBIAN_PACKAGE when absent. */
export function requireTool(command: string, debianPackage: string, path = process.env.PATH ?? ''): string {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  throw new MissingToolError(command, debianPackage);
}
