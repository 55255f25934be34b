import { createPostgresStore } from '../dist/storage/postgres/postgres-store.js';
import { createSqliteStore } from '../dist/storage/sqlite/sqlite-store.js';

/**
 * Opens a bench StoreSpec (bench/stores.ts) from compiled dist/, for the child processes that run without the
 * TypeScript loader. PostgreSQL's URL comes from LARDER_BENCH_DATABASE_URL, set by the parent.
 */
export const openSpecStore = (spec, { migrate = false } = {}) =>
  spec.backend === 'sqlite'
    ? createSqliteStore({ path: spec.path, ...(spec.cacheMb === undefined ? {} : { cacheMb: spec.cacheMb }) })
    : createPostgresStore({
        databaseUrl: process.env.LARDER_BENCH_DATABASE_URL,
        schema: spec.schema,
        migrate,
      });
