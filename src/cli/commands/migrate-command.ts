import { existsSync } from 'node:fs';
import { DEFAULT_SQLITE_PATH } from '../../shared/limits.js';
import { storeFailure } from '../../storage/open-store.js';
import { migratePostgres } from '../../storage/postgres/migrate-postgres.js';
import { type Command, STORE_OPTIONS } from '../command.js';
import { storeDatabaseUrl, storeLocationFromArgs, withStore } from '../store-options.js';

export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'Bring the database schema up to date (PostgreSQL; SQLite migrates itself on open).',
  usage: 'larder migrate --database-url postgres://user@host/db',
  options: STORE_OPTIONS,
  notes:
    'Safe to run from several places at once (an advisory lock serialises them). Every other command refuses\n' +
    'an unmigrated or older schema (`serve --migrate` migrates as it starts), and a newer one always. With\n' +
    '--db, a missing file is made, empty, and said to be new.',
  run: async (args, io) => {
    const databaseUrl = storeDatabaseUrl(args);
    if (databaseUrl === undefined) {
      const { db } = storeLocationFromArgs(args);
      // Made if missing (a schema to import into), but said so: a mistyped --db must not read as a database found.
      const created = !existsSync(db);
      await withStore(args, async () => {});
      io.stdout(
        created
          ? `Created a new, empty SQLite database at ${db}.\n`
          : `SQLite database ${db} is up to date.\n`,
      );
      return 0;
    }
    const result = await migratePostgres({ databaseUrl }).catch((error: unknown) => {
      throw storeFailure('migrate', { db: args.strings['db'] ?? DEFAULT_SQLITE_PATH, databaseUrl }, error);
    });
    io.stdout(
      result.from === result.to
        ? `Schema already at version ${result.to}.\n`
        : `Migrated schema from version ${result.from} to ${result.to}.\n`,
    );
    return 0;
  },
};
