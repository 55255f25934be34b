import pg from 'pg';
import { connectionConfig, type PostgresConnectionOptions } from './connection.js';
import { type MigrationResult, migrate } from './migrations.js';
import { toStoreError } from './pg-errors.js';

/** `larder migrate --database-url …`: applies pending migrations (creating `schema` if named) and says how far. */
export const migratePostgres = async (options: PostgresConnectionOptions): Promise<MigrationResult> => {
  const client = new pg.Client(connectionConfig(options));
  client.on('error', () => {});
  try {
    await client.connect();
    return await migrate(client, options.schema);
  } catch (error) {
    throw toStoreError(error);
  } finally {
    await client.end().catch(() => {});
  }
};
