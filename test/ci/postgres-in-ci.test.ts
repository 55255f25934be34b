import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { REPO } from '../helpers/repo.js';

// In CI, PostgreSQL tests must fail when the database is unreachable, never skip; elsewhere they skip and say so.
const repo = `${REPO}/`;
/** Nothing listens on port 1: connecting is refused at once. */
const NOWHERE = 'postgres://postgres@127.0.0.1:1/test';

const runTestFile = (file: string, ci: string | undefined) => {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: NOWHERE };
  delete env['CI'];
  // The child is a test run of its own: keep the parent runner's context out of it.
  delete env['NODE_TEST_CONTEXT'];
  if (ci !== undefined) env['CI'] = ci;
  return spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', file], {
    cwd: repo,
    env,
    encoding: 'utf8',
  });
};

for (const file of ['test/storage/postgres-migrations.test.ts', 'test/retail/get-by-id.test.ts']) {
  test(`${file}: skipped with the reason outside CI`, () => {
    const run = runTestFile(file, undefined);
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /# SKIP PostgreSQL not reachable at postgres:\/\/postgres@127\.0\.0\.1:1\/test/);
    assert.match(run.stdout, /skipped outside CI/);
  });

  test(`${file}: fails under CI=true`, () => {
    const run = runTestFile(file, 'true');
    assert.notEqual(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout + run.stderr, /CI is set, so PostgreSQL tests fail rather than skip/);
  });
}
