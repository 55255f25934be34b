import type { Store } from './store.js';

export interface StoreLocation {
  /** SQLite file (the embedded default). */
  db: string;
  /** PostgreSQL URL; when set it wins over `db`. */
  databaseUrl?: string;
}

/** Opens the configured backend; PostgreSQL code is loaded only when it is used. */
export const openStore = async (location: StoreLocation): Promise<Store> => {
  if (location.databaseUrl !== undefined) {
    const { createPostgresStore } = await import('./postgres/postgres-store.js');
    return createPostgresStore({ databaseUrl: location.databaseUrl });
  }
  const { createSqliteStore } = await import('./sqlite/sqlite-store.js');
  return createSqliteStore({ path: location.db });
};
