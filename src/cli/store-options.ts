import { DEFAULT_SQLITE_PATH } from '../shared/limits.js';
import { openStore } from '../storage/open-store.js';
import type { Store } from '../storage/store.js';
import type { ParsedArgs } from './command.js';

/** Opens the store the command's --db / --database-url (or their environment variables) name. */
export const openStoreFromArgs = (
  args: ParsedArgs,
  options: { migrate?: boolean; poolSize?: number } = {},
): Promise<Store> => {
  const databaseUrl = args.strings['database-url'];
  return openStore({
    db: args.strings['db'] ?? DEFAULT_SQLITE_PATH,
    ...(databaseUrl === undefined ? {} : { databaseUrl }),
    ...options,
  });
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
