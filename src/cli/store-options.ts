import { existsSync, readFileSync, rmSync } from 'node:fs';
import { StoreError } from '../shared/errors.js';
import { DEFAULT_SQLITE_PATH } from '../shared/limits.js';
import { openStore, type StoreLocation } from '../storage/open-store.js';
import type { Store } from '../storage/store.js';
import { optionLabel, type ParsedArgs, UsageError } from './command.js';

/**
 * The PostgreSQL URL to use, if any. A flag beats the environment: an explicit --db wins over a DATABASE_URL
 * the shell happens to export, and --database-url over LARDER_DB. Between two environment variables, the URL
 * wins, as documented ("used instead of --db").
 */
export const storeDatabaseUrl = (args: ParsedArgs): string | undefined => {
  if (args.given.has('db') && args.given.has('database-url'))
    throw new UsageError('Give --db or --database-url, not both.');
  if (args.given.has('db')) return undefined;
  const url = args.strings['database-url'];
  // node-postgres would read a libpq `host=… password=…` string as a path and fail on a host named `base`.
  if (url !== undefined && !(URL.canParse(url) && /^postgres(ql)?:$/.test(new URL(url).protocol)))
    throw new UsageError(
      `${optionLabel(args, 'database-url')} must be a postgres:// or postgresql:// URL (it is not shown: it may hold a password).`,
    );
  return url;
};

/** The store the command's --db / --database-url (or their environment variables) name. */
export const storeLocationFromArgs = (
  args: ParsedArgs,
  options: { migrate?: boolean; poolSize?: number } = {},
): StoreLocation => {
  const databaseUrl = storeDatabaseUrl(args);
  const keyEncryptionKey = keyEncryptionKeyFrom(args);
  return {
    db: args.strings['db'] ?? DEFAULT_SQLITE_PATH,
    ...(databaseUrl === undefined ? {} : { databaseUrl }),
    ...(keyEncryptionKey === undefined ? {} : { keyEncryptionKey }),
    ...options,
  };
};

/** Opens the store the command's --db / --database-url (or their environment variables) name. */
export const openStoreFromArgs = (
  args: ParsedArgs,
  options: { migrate?: boolean; poolSize?: number } = {},
): Promise<Store> => openStore(storeLocationFromArgs(args, options));

/**
 * The key-encryption key: from --key-file (or LARDER_KEY_FILE), else LARDER_KEY_ENCRYPTION_KEY. Never a flag
 * value, which any user could read in the process list.
 */
export const keyEncryptionKeyFrom = (
  args: ParsedArgs,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string | undefined => {
  const path = args.strings['key-file'];
  if (path !== undefined) {
    try {
      return readFileSync(path, 'utf8');
    } catch (error) {
      throw new UsageError(
        `${optionLabel(args, 'key-file')} ${path} cannot be read: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  const value = env['LARDER_KEY_ENCRYPTION_KEY'];
  return value === undefined || value === '' ? undefined : value;
};

/**
 * Undoes a SQLite file this command created, when the command fails or is stopped (Ctrl-C, SIGTERM): a typo'd
 * --db or a rejected or interrupted import must not leave an empty or partial database behind for the next
 * command to mistake for the real one. A file that existed before is never removed. Returns the cleanup to run
 * after the store is closed.
 */
export const newDatabaseGuard = (location: StoreLocation): ((failed: boolean) => void) => {
  const created = location.databaseUrl === undefined && !existsSync(location.db);
  if (!created) return () => {};
  const remove = () => {
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${location.db}${suffix}`, { force: true });
  };
  // Synchronous, then exit: the work in flight (an import's worker thread) is abandoned with the file.
  const onSignal = (signal: NodeJS.Signals) => {
    remove();
    process.stderr.write(`larder: ${signal}: stopped; the new database ${location.db} was removed.\n`);
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return (failed) => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (failed) remove();
  };
};

/**
 * Runs `work` with an open store and always closes it. When the work throws, or `failed` says its result is a
 * failure, a SQLite file the command created is removed again.
 */
export const withStore = async <T>(
  args: ParsedArgs,
  work: (store: Store) => Promise<T>,
  failed: (result: T) => boolean = () => false,
  options: { readsOnly?: boolean } = {},
): Promise<T> => {
  const location = storeLocationFromArgs(args);
  // A command that only reads would otherwise succeed on a new, empty file: `check` on a mistyped --db would
  // find nothing wrong and exit 0.
  if (options.readsOnly === true && location.databaseUrl === undefined && !existsSync(location.db))
    throw new StoreError(
      'STORE_UNAVAILABLE',
      `No database at ${location.db}: check --db (env LARDER_DB). Nothing was created.`,
    );
  const cleanup = newDatabaseGuard(location);
  let ok = false;
  try {
    const store = await openStore(location);
    try {
      const result = await work(store);
      ok = !failed(result);
      return result;
    } finally {
      await store.close();
    }
  } finally {
    cleanup(!ok);
  }
};
