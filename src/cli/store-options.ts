import { readFileSync } from 'node:fs';
import { DEFAULT_SQLITE_PATH } from '../shared/limits.js';
import { openStore } from '../storage/open-store.js';
import type { Store } from '../storage/store.js';
import { type ParsedArgs, UsageError } from './command.js';

/** Opens the store the command's --db / --database-url (or their environment variables) name. */
export const openStoreFromArgs = (
  args: ParsedArgs,
  options: { migrate?: boolean; poolSize?: number } = {},
): Promise<Store> => {
  const databaseUrl = args.strings['database-url'];
  const keyEncryptionKey = keyEncryptionKeyFrom(args);
  return openStore({
    db: args.strings['db'] ?? DEFAULT_SQLITE_PATH,
    ...(databaseUrl === undefined ? {} : { databaseUrl }),
    ...(keyEncryptionKey === undefined ? {} : { keyEncryptionKey }),
    ...options,
  });
};

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
        `--key-file ${path} cannot be read: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  const value = env['LARDER_KEY_ENCRYPTION_KEY'];
  return value === undefined || value === '' ? undefined : value;
};

/** Runs `work` with an open store and always closes it. */
export const withStore = async <T>(args: ParsedArgs, work: (store: Store) => Promise<T>): Promise<T> => {
  const store = await openStoreFromArgs(args);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
};
