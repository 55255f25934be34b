import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runningInCi } from '../helpers/ci.js';
import { runNode } from '../helpers/cli.js';

/** CI does not run the full bench (minutes on 2 cores); this smoke keeps every part of it from rotting. */
const ROOT = join(import.meta.dirname, '..', '..');
let out: string | undefined;

/**
 * The bench's load generator is its own dependency (bench/package.json): `npm run bench` installs it, .ci/run
 * too. Outside CI a checkout that never ran the bench skips this test and says so; in CI it must run.
 */
const missing =
  existsSync(join(ROOT, 'bench', 'node_modules', 'autocannon')) || runningInCi()
    ? false
    : 'bench/node_modules is not installed (npm run bench, or npm ci --prefix bench); skipped outside CI';

after(async () => {
  if (out !== undefined) await rm(out, { recursive: true, force: true });
});

test('npm run bench --smoke measures every scenario and writes the table', {
  timeout: 90_000,
  skip: missing,
}, async () => {
  out = await mkdtemp(join(tmpdir(), 'larder-bench-smoke-'));
  const run = await runNode(['--import', 'tsx', 'bench/run.ts', '--smoke', '--out', out], { cwd: ROOT });
  assert.equal(run.code, 0, run.stderr);

  const table = await readFile(join(out, 'smoke.md'), 'utf8');
  assert.match(table, /^Machine: .+ cores, Node v\d+/m);
  assert.match(table, /\| Scenario \| Server \| req\/s \| p50 ms \| p99 ms \| Ratio \| Target \| Result \|/);
  for (const scenario of [
    'GET purchase order by id',
    'GET inventory entry by id',
    'First search page',
    'Deep search page',
    'Inventory search, type + date filter',
    'Login',
    'OAuth token grant',
    'Server RSS after the run',
    'Import purchase orders',
    'Import inventory entries',
  ])
    assert.ok(table.includes(`| ${scenario}`), `the table has a "${scenario}" row`);
  assert.equal(run.stdout.includes('| raw node:http |'), true, 'the table is printed too');

  const results = JSON.parse(await readFile(join(out, 'smoke.json'), 'utf8')) as {
    rows: { server: string; rate?: number; note?: string }[];
  };
  const larderRows = results.rows.filter((row) => row.server === 'Larder sqlite' && row.rate !== undefined);
  assert.ok(larderRows.length >= 7);
  // Every request the load generator sent was answered with a 200 (a failure would be noted on its row).
  for (const row of larderRows) assert.doesNotMatch(row.note ?? '', /failed requests/);
});
