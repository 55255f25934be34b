#!/usr/bin/env node
// Runs every test/**/*.test.ts and src/**/*.test.ts (tests kept beside their module, e.g.
// src/middleware/<name>/<name>.test.ts) and the client package's packages/client/test/**/*.test.ts with node's own test runner (Node 20 has no glob support for --test).
// `--list` prints the files instead of running them. `--compiled` (what `npm test` uses) compiles them first
// (scripts/build-tests.mjs, which is also `npm test`'s type check of sources and tests) and runs the JavaScript in
// .test-build/ without tsx: the same tests, about 70 s sooner in a 2-core CI.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const find = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return find(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });

const args = process.argv.slice(2);
const list = args.includes('--list');
const compiled = args.includes('--compiled');
const only = args.filter((arg) => arg !== '--list' && arg !== '--compiled');
const files = (
  only.length > 0
    ? only
    : ['test', 'src', 'packages/client/test'].filter((dir) => existsSync(dir)).flatMap(find)
).sort();
if (list) {
  for (const file of files) console.log(file);
  process.exit(0);
}
if (compiled) {
  const built = spawnSync(process.execPath, [join(import.meta.dirname, 'build-tests.mjs')], {
    stdio: 'inherit',
  });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
// A test that waits for an event that never comes fails after 7 minutes instead of hanging CI. Node applies it to
// each file as a whole too, so it stays well above the longest file's time on a loaded 2-core machine (the bench
// smokes, over 2 minutes in CI on 2026-12-03).
const TEST_TIMEOUT_MS = 420_000;
// Two files at a time: most files wait on child processes, PostgreSQL or a browser, so on a 2-core machine the suite
// took 9.8 min instead of 16.2 one file at a time (Node's default is one file per core less one). Files share nothing
// but the database server, where each takes a fresh schema or database. Not one per core on bigger machines: the
// browser tests would then draw several pages at once against their render bounds.
const TEST_CONCURRENCY = 2;
// LARDER_CONTRACT=enforce: every answer an app gives in the tests is checked against the OpenAPI document
// (src/middleware/contract), so the document and the behaviour cannot drift.
const result = spawnSync(
  process.execPath,
  [
    // Source maps, so a failure in a compiled test still points at its .ts line.
    ...(compiled ? ['--enable-source-maps'] : ['--import', 'tsx']),
    '--test',
    `--test-concurrency=${TEST_CONCURRENCY}`,
    `--test-timeout=${TEST_TIMEOUT_MS}`,
    '--test-reporter=spec',
    ...(compiled ? files.map((file) => join('.test-build', file.replace(/\.ts$/, '.js'))) : files),
  ],
  {
    stdio: 'inherit',
    env: { LARDER_CONTRACT: 'enforce', ...process.env },
  },
);
process.exit(result.status ?? 1);
