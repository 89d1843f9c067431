// A throwaway PostgreSQL cluster for the unit tests: initdb in a temp directory, the server on a
// free loopback port (no unix socket), trust authentication (only this machine's loopback, only
// for the test's lifetime), stopped and removed afterwards. It needs Debian's `postgresql`
// package (test/lab/install-packages.sh installs it); without it the tests fail saying so.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '@/test/support/free-port';

export interface PostgresCluster {
  /** postgres://…/postgres, the maintenance database */
  adminUrl: string;
  /** a new, empty database; its URL */
  createDatabase(): Promise<string>;
  stop(): void;
}

const postgresRoot = '/usr/lib/postgresql';

/** The newest installed server's bin directory. */
export function postgresBinDir(): string {
  const versions = existsSync(postgresRoot) ? readdirSync(postgresRoot).filter((entry) => existsSync(join(postgresRoot, entry, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) {
    throw new Error(
      `no PostgreSQL server under ${postgresRoot}: install Debian's postgresql package (sudo bash test/lab/install-packages.sh, or apt-get install postgresql)`,
    );
  }
  return join(postgresRoot, newest, 'bin');
}

/** PostgreSQL refuses to run as root: as root, its commands run as the `postgres` user. */
function asServerUser(command: string, args: string[]): void {
  const argv = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--', command, ...args] : [command, ...args];
  execFileSync(argv[0]!, argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
}

export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  const dir = mkdtempSync(join(tmpdir(), 'pg-test-'));
  const dataDir = join(dir, 'data');
  if (process.getuid?.() === 0)
    chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString()), Number(execFileSync('id', ['-g', 'postgres']).toString()));
  const port = await freePort();
  asServerUser(join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  asServerUser(join(bin, 'pg_ctl'), [
    '-D',
    dataDir,
    '-l',
    join(dir, 'server.log'),
    '-w',
    '-o',
    `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories='' -c fsync=off`,
    'start',
  ]);
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let next = 0;
  return {
    adminUrl,
    async createDatabase() {
      const name = `test_${process.pid}_${++next}`;
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    stop() {
      try {
        asServerUser(join(bin, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
