// Admin CLI: a consistent online copy of the store, while the server runs.
//
//   npm run backup -- <file>        (DATA_DIR as the server's, default ./data)
//
// Exit 0 with the copy written (mode 0600), 1 when the copy failed, 2 for a bad command line.
// Restore: stop the server, copy <file> to $DATA_DIR/kvm2-proxies.db, delete kvm2-proxies.db-wal
// and kvm2-proxies.db-shm there, start the server.
import { settingsFromEnv } from '@/server/control/settings';
import { BackupError, backupStore } from '@/server/store/backup';

const usage = 'usage: npm run backup -- <file>   (reads the store in DATA_DIR, default ./data)';

async function main(argv: string[]): Promise<number> {
  const [destination, ...rest] = argv;
  if (!destination || rest.length > 0 || destination.startsWith('-')) {
    console.error(usage);
    return 2;
  }
  try {
    const result = await backupStore({ dataDir: settingsFromEnv().dataDir, destination });
    console.log(`backed up the store to ${result.destination} (${result.pages} pages, schema version ${result.schemaVersion}, mode 0600)`);
    return 0;
  } catch (err) {
    if (!(err instanceof BackupError)) throw err;
    console.error(err.message);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
