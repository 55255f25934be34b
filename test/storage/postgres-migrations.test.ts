import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { migratePostgres } from '../../src/storage/postgres/migrate-postgres.js';
import { LATEST_SCHEMA_VERSION } from '../../src/storage/postgres/migrations.js';
import { createPostgresStore } from '../../src/storage/postgres/postgres-store.js';
import { adminQuery, freshSchemaName, postgresUnreachable, postgresUrl } from './backends.js';
import { rejectsWithStoreError } from './records.js';

/** Versioned migrations: applied once, in order; serving refuses a schema it does not match. */

const unreachable = await postgresUnreachable();

if (unreachable !== undefined) {
  test('PostgreSQL migrations', { skip: unreachable }, () => {});
} else {
  describe('PostgreSQL migrations', () => {
    const schemas: string[] = [];
    const fresh = (): string => {
      const schema = freshSchemaName();
      schemas.push(schema);
      return schema;
    };

    after(async () => {
      for (const schema of schemas) await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    });

    test('a store refuses an unmigrated schema, saying how to migrate', async () => {
      await rejectsWithStoreError(
        createPostgresStore({ databaseUrl: postgresUrl, schema: fresh() }),
        'STORE_SCHEMA',
        /version 0, this Larder needs version \d+.*larder migrate/,
      );
    });

    test('migratePostgres applies every migration once, and concurrent runs take turns', async () => {
      const schema = fresh();
      const runs = await Promise.all(
        [1, 2, 3].map(() => migratePostgres({ databaseUrl: postgresUrl, schema })),
      );
      assert.deepEqual(
        runs.map((run) => run.to),
        [LATEST_SCHEMA_VERSION, LATEST_SCHEMA_VERSION, LATEST_SCHEMA_VERSION],
      );
      assert.deepEqual(runs.map((run) => run.from).sort(), [0, LATEST_SCHEMA_VERSION, LATEST_SCHEMA_VERSION]);
      const applied = await adminQuery(`SELECT version FROM ${schema}.schema_migrations ORDER BY version`);
      assert.deepEqual(
        applied.rows.map((row) => row.version),
        Array.from({ length: LATEST_SCHEMA_VERSION }, (_, i) => i + 1),
      );
      const store = await createPostgresStore({ databaseUrl: postgresUrl, schema });
      assert.equal(store.describe(), 'postgres');
      await store.close();
    });

    test('a store and migratePostgres refuse a schema newer than this build', async () => {
      const schema = fresh();
      await migratePostgres({ databaseUrl: postgresUrl, schema });
      await adminQuery(`INSERT INTO ${schema}.schema_migrations (version, name) VALUES ($1, 'future')`, [
        LATEST_SCHEMA_VERSION + 1,
      ]);
      await rejectsWithStoreError(
        createPostgresStore({ databaseUrl: postgresUrl, schema }),
        'STORE_SCHEMA',
        /newer than this Larder/,
      );
      await rejectsWithStoreError(
        createPostgresStore({ databaseUrl: postgresUrl, schema, migrate: true }),
        'STORE_SCHEMA',
        /newer than this Larder/,
      );
      await rejectsWithStoreError(
        migratePostgres({ databaseUrl: postgresUrl, schema }),
        'STORE_SCHEMA',
        /newer than this Larder/,
      );
    });

    test('an invalid schema name is refused before connecting', async () => {
      await assert.rejects(
        createPostgresStore({ databaseUrl: postgresUrl, schema: 'x; DROP TABLE y' }),
        /Invalid PostgreSQL schema name/,
      );
    });
  });
}
