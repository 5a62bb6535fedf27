/**
 * `npm run journal:import -- --data-dir D --database-url U`: see import.ts. Prints a progress
 * bar with the entries per second while it copies, then one sentence of what it did.
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../core/config.ts';
import { ImportRefused, importJournal } from './import.ts';
import { PostgresUnreachableError } from './connect.ts';

const USAGE = 'npm run journal:import -- --data-dir DIR --database-url postgres://user@host:5432/db   (the password, if any, in PGPASSWORD)';

function bar(done: number, total: number, elapsedMs: number): string {
  const width = 30;
  const filled = total === 0 ? width : Math.round((done / total) * width);
  const rate = elapsedMs > 0 ? Math.round((done / elapsedMs) * 1000) : 0;
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done.toLocaleString('en')} / ${total.toLocaleString('en')} entries, ${rate.toLocaleString('en')} entries/s`;
}

let values: { 'data-dir'?: string; 'database-url'?: string; help?: boolean };
try {
  values = parseArgs({ args: process.argv.slice(2), options: { 'data-dir': { type: 'string' }, 'database-url': { type: 'string' }, help: { type: 'boolean' } }, strict: true }).values;
} catch (err) {
  console.error(`Cannot import: ${(err as Error).message}\n${USAGE}`);
  process.exit(2);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

let dataDir: string;
let databaseUrl: string;
try {
  // The same checks as the app's own: a data dir, and a postgres:// URL with no password in it.
  const config = loadConfig({ POS_DATA_DIR: values['data-dir'] ?? process.env.POS_DATA_DIR, POS_DATABASE_URL: values['database-url'] ?? process.env.POS_DATABASE_URL }, []);
  if (config.databaseUrl === null) throw new ConfigError('give the database to import into with --database-url (or POS_DATABASE_URL).');
  if (values['data-dir'] === undefined && process.env.POS_DATA_DIR === undefined) throw new ConfigError('give the store computer’s data dir with --data-dir (or POS_DATA_DIR).');
  dataDir = config.dataDir;
  databaseUrl = config.databaseUrl;
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(`Cannot import: ${err.message}\n${USAGE}`);
  process.exit(2);
}

const tty = process.stderr.isTTY;
try {
  const result = await importJournal({
    dataDir,
    databaseUrl,
    progress: (done, total, ms) => process.stderr.write(tty ? `\r${bar(done, total, ms)}` : `${bar(done, total, ms)}\n`),
  });
  if (tty) process.stderr.write('\n');
  if (result.outcome === 'already_there') {
    console.log(`The database already holds this journal (${result.entries.toLocaleString('en')} entries): nothing was changed.`);
  } else {
    const rate = Math.round(((result.entries - result.resumedAfter) / Math.max(result.ms, 1)) * 1000);
    const resumed = result.resumedAfter > 0 ? `, going on after entry ${result.resumedAfter.toLocaleString('en')}` : '';
    console.log(`Imported ${result.entries.toLocaleString('en')} entries${resumed} in ${(result.ms / 1000).toFixed(1)} s (${rate.toLocaleString('en')} entries/s); the chain verifies in the database.`);
  }
} catch (err) {
  if (tty) process.stderr.write('\n');
  if (err instanceof ImportRefused || err instanceof PostgresUnreachableError) {
    console.error(`Cannot import: ${err.message}`);
    process.exit(1);
  }
  throw err;
}
