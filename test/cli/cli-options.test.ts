import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runMain } from '../helpers/cli.js';

/** How options reach a command: flags, environment variables and their precedence, run in process. */

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-options-'));
});
after(() => rm(dir, { recursive: true, force: true }));

const run = runMain;

/** Nothing listens on port 1: a store opened there fails, naming PostgreSQL. */
const NOWHERE = 'postgres://larder@127.0.0.1:1/nowhere';

describe('flags beat the environment', () => {
  test('an explicit --db wins over DATABASE_URL in the environment', async () => {
    const db = join(dir, 'flag-db.db');
    const migrated = await run(['migrate', '--db', db], { DATABASE_URL: NOWHERE });
    assert.equal(migrated.stderr, '');
    assert.equal(migrated.stdout, `SQLite database ${db} is up to date.\n`);
    assert.equal(migrated.code, 0);
    const listed = await run(['locations', 'list', '--db', db], { DATABASE_URL: NOWHERE });
    assert.equal(listed.stderr, '');
    assert.equal(listed.code, 0);
  });

  test('an explicit --database-url wins over LARDER_DB in the environment', async () => {
    const db = join(dir, 'env-db.db');
    const listed = await run(
      ['clients', 'create', '--name', 'x', '--all-locations', '--database-url', NOWHERE],
      {
        LARDER_DB: db,
      },
    );
    assert.equal(listed.code, 1);
    assert.match(listed.stderr, /PostgreSQL at larder@127\.0\.0\.1:1\/nowhere/);
    assert.equal(existsSync(db), false);
  });

  test('DATABASE_URL still wins over LARDER_DB when both come from the environment', async () => {
    const db = join(dir, 'both-env.db');
    const listed = await run(['clients', 'create', '--name', 'x', '--all-locations'], {
      LARDER_DB: db,
      DATABASE_URL: NOWHERE,
    });
    assert.equal(listed.code, 1);
    assert.match(listed.stderr, /PostgreSQL at larder@127\.0\.0\.1:1\/nowhere/);
  });

  test('--db and --database-url together are a usage error', async () => {
    const both = await run(['locations', 'list', '--db', join(dir, 'x.db'), '--database-url', NOWHERE]);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /Give --db or --database-url, not both\./);
  });
});
