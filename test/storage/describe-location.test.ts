import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeLocation } from '../../src/storage/open-store.js';

const postgres = (databaseUrl: string) => describeLocation({ db: 'larder.db', databaseUrl });

test('a store is named for messages by its file, or its PostgreSQL user, host, port and database', () => {
  assert.equal(describeLocation({ db: 'data/larder.db' }), 'the SQLite database data/larder.db');
  assert.equal(
    postgres('postgres://ops@db.internal:5433/larder'),
    'PostgreSQL at ops@db.internal:5433/larder',
  );
  assert.equal(postgres('postgres://db.internal/larder'), 'PostgreSQL at db.internal/larder');
});

test('the password is never part of the name', () => {
  const named = postgres('postgres://ops:s3cret-pass@db.internal:5432/larder?sslmode=require');
  assert.equal(named, 'PostgreSQL at ops@db.internal:5432/larder');
  assert.doesNotMatch(named, /s3cret/);
});

test('nor is a libpq key=value string, which the driver reads as a path of a URL: it is not named at all', () => {
  const named = postgres('host=db.internal user=ops password=s3cret-pass dbname=larder');
  assert.equal(named, 'PostgreSQL (the --database-url is not a URL such as postgres://USER@HOST/DB)');
  // A socket directory with the database after a space is the driver's own form, and names no secret.
  assert.equal(postgres('/var/run/postgresql larder'), 'PostgreSQL at /var/run/postgresql/larder');
});

test('a Unix-socket URL, which node-postgres accepts but a WHATWG URL refuses, is named by its socket directory', () => {
  // Before, such a URL was reported as "not a valid URL" beside whatever the real problem was.
  assert.equal(
    postgres('postgres://postgres@/test?host=/var/run/postgresql'),
    'PostgreSQL at postgres@/var/run/postgresql/test',
  );
  assert.equal(postgres('socket:/var/run/postgresql?db=test'), 'PostgreSQL at /var/run/postgresql/test');
});

test('only a URL the driver cannot read either is called not valid', () => {
  assert.equal(postgres('postgres://[bad'), 'PostgreSQL (the --database-url is not a valid URL)');
});
