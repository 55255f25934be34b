import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { inScratch, missing, runBench } from './smoke.js';

/** The bench's scenarios, its workers mode and its cost-against-size run (the optional paths: bench-paths-smoke). */

let out: string | undefined;

after(async () => {
  if (out !== undefined) await rm(out, { recursive: true, force: true });
});

test('npm run bench --smoke measures every scenario on both datasets and writes the table', {
  timeout: 240_000,
  skip: missing,
}, async () => {
  out = await mkdtemp(join(tmpdir(), 'larder-bench-smoke-'));
  const run = await runBench(['--import', 'tsx', 'bench/run.ts', '--smoke', '--out', out]);
  // The report says the SQLite store's pages are in the OS page cache: the bench reads the file first.
  assert.match(run.stderr, /\[bench\] reading the SQLite store into the OS page cache \([\d.]+ GB\)/);

  const table = await readFile(join(out, 'smoke.md'), 'utf8');
  assert.match(table, /^Machine: .+ cores, Node v\d+/m);
  assert.match(table, /^Command: `npm run bench -- --smoke/m);
  assert.match(
    table,
    /\| Scenario \| Server \| req\/s \| p50 ms \| p99 ms \| Ratio \| Target \| Result \| Loop delay p99 \/ max ms \(longest GC pause\) \|/,
  );
  const searches = [
    'First search page (100 purchase orders, includeArchived)',
    'First search page, archived left out',
    'First search page, one status',
    'Deep search page',
    'Inventory search, type + date filter',
    'Inventory search, type + date filter, a later page',
  ];
  for (const scenario of [
    'GET purchase order by id',
    'GET inventory entry by id',
    ...searches,
    ...searches.map((search) => `${search.replace(/ \(.*$/, '')}`),
    'Login',
    'OAuth token grant',
    'Server RSS after the run',
    'Import purchase orders',
    'Import inventory entries',
  ])
    assert.ok(table.includes(`| ${scenario}`), `the table has a "${scenario}" row`);
  // The non-ASCII dataset runs every retail scenario too.
  for (const scenario of [
    'GET purchase order by id',
    ...searches.map((search) => search.replace(/ \(.*$/, '')),
  ])
    assert.match(table, new RegExp(`\\| ${scenario.replace(/[()+]/g, '\\$&')}[^|]* · non-ASCII`), scenario);
  assert.equal(run.stdout.includes('| raw node:http |'), true, 'the table is printed too');

  const results = JSON.parse(await readFile(join(out, 'smoke.json'), 'utf8')) as {
    rows: {
      server: string;
      rate?: number;
      note?: string;
      loopDelay?: { p99: number; max: number; gcMax: number };
    }[];
  };
  const larderRows = results.rows.filter((row) => row.server === 'Larder sqlite' && row.rate !== undefined);
  assert.ok(larderRows.length >= 7);
  // Every request the load generator sent was answered with a 200 (a failure would be noted on its row), and the
  // event-loop probe reported on every load row.
  for (const row of larderRows) {
    assert.doesNotMatch(row.note ?? '', /failed requests/);
    assert.ok(row.loopDelay !== undefined && row.loopDelay.max >= row.loopDelay.p99, 'loop delay measured');
    assert.ok(row.loopDelay.gcMax >= 0, 'the longest GC pause is reported beside it');
  }
  // The raw server is probed too: its delay is the control a Larder row's is read against.
  const rawRows = results.rows.filter((row) => row.server === 'raw node:http' && row.rate !== undefined);
  assert.ok(rawRows.length >= 7);
  for (const row of rawRows)
    assert.ok(
      row.loopDelay !== undefined && row.loopDelay.max >= row.loopDelay.p99,
      'raw loop delay measured',
    );
  assert.match(
    table,
    /The raw node:http server, probed the same way over its own runs, is the control: p99 /,
  );
  assert.match(
    table,
    /\| [\d.]+ \/ (\*\*)?[\d.]+(\*\*)? \([\d.]+\) \|$/m,
    'a loop-delay cell names its longest GC pause',
  );
});

test('the bench runs larder serve with workers and serve flags side by side', {
  timeout: 120_000,
  skip: missing,
}, async () => {
  await inScratch('larder-bench-workers-', async (dir) => {
    const args = ['--smoke', '--only', 'get-po', '--dataset', 'unicode', '--workers', '1,2'];
    await runBench([
      '--import',
      'tsx',
      'bench/run.ts',
      ...args,
      '--serve-args=--login-throttle off',
      '--out',
      dir,
    ]);
    const table = await readFile(join(dir, 'smoke.md'), 'utf8');
    for (const server of ['Larder sqlite ×1', 'Larder sqlite ×2'])
      assert.match(
        table,
        new RegExp(`\\| GET purchase order by id · non-ASCII \\| ${server} \\| [\\d,]+ `),
        server,
      );
    assert.match(table, /Every Larder ran with `--login-throttle off`/);
  });
});

test('npm run bench -- --only import,cold-start measures those alone, with no server under load first', {
  timeout: 120_000,
  skip: missing,
}, async () => {
  await inScratch('larder-bench-one-shots-', async (dir) => {
    await runBench([
      '--import',
      'tsx',
      'bench/run.ts',
      '--smoke',
      '--only',
      'import,cold-start',
      '--out',
      dir,
    ]);
    const table = await readFile(join(dir, 'smoke.md'), 'utf8');
    for (const row of [
      'Import purchase orders',
      'Import inventory entries',
      'Cold start to first answered request',
    ])
      assert.ok(table.includes(`| ${row}`), row);
    assert.ok(!table.includes('| raw node:http |'), 'no load scenario ran');
    assert.ok(!table.includes('| Seed'), 'nor the seed, not asked for');
  });
});

test('npm run bench -- --scale measures cost against size and draws the chart', {
  timeout: 180_000,
  skip: missing,
}, async () => {
  await inScratch('larder-bench-scale-', async (dir) => {
    await runBench([
      '--import',
      'tsx',
      'bench/run.ts',
      '--smoke',
      '--scale',
      '--sqlite-cache-mb',
      '32',
      '--out',
      dir,
    ]);
    const text = await readFile(join(dir, 'scale-smoke.md'), 'utf8');
    assert.match(
      text,
      /^SQLite page cache: 32 MiB a connection \(`--sqlite-cache-mb 32`; Larder’s default is 64\)\.$/m,
    );
    assert.match(text, /\| sqlite \| one location \| [\d,]+ \|/);
    assert.match(text, /\| sqlite \| 4 locations \| [\d,]+ \|/);
    // Two sizes, so the smallest is measured again after the larger, and the larger read against it.
    assert.match(text, /\| sqlite \| 4 locations, control after 10,000 \| [\d,]+ \|/);
    assert.match(
      text,
      /^- sqlite, one location, against a fresh [\d,]+ store measured right after the [\d,]+ one /m,
    );
    // Records a page: first / deep / filtered first / filtered deep.
    assert.match(text, /\| \d+ \/ \d+ \/ \d+ \/ \d+ \|/);
    const svg = await readFile(join(dir, 'scale-smoke.svg'), 'utf8');
    assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.ok((svg.match(/<polyline /g) ?? []).length >= 6, 'a curve per panel at least');
    const { points } = JSON.parse(await readFile(join(dir, 'scale-smoke.json'), 'utf8')) as {
      points: { importRate: number; diskMb: number; rssMb: number; get: { requestsPerSecond: number } }[];
    };
    for (const point of points) {
      assert.ok(point.importRate > 0 && point.diskMb > 0 && point.rssMb > 0);
      assert.ok(point.get.requestsPerSecond > 0);
    }
  });
});
