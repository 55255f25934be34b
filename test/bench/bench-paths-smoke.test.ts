import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { inScratch, missing, runBench } from './smoke.js';

/** The bench's tools for optional paths: their cost, off/on pairs, pooled pairs, and the page envelope. */

const costRun = (dir: string, ...args: string[]) =>
  runBench([
    '--import',
    'tsx',
    'bench/run.ts',
    '--cost',
    '--smoke',
    '--dataset',
    'demo',
    ...args,
    '--out',
    dir,
  ]);

test('npm run bench -- --cost --smoke prices every optional path in server CPU per request', {
  timeout: 240_000,
  skip: missing,
}, async () => {
  await inScratch('larder-bench-cost-', async (dir) => {
    await costRun(dir);
    const table = await readFile(join(dir, 'cost-sqlite.md'), 'utf8');
    for (const path of [
      'all optional paths off',
      'admin API + journal',
      'admin API, journal off',
      'the same, 64-entry journal',
      '--rate-limit platform',
      'metrics',
      'access log',
    ])
      for (const request of ['GET purchase order by id', 'First search page'])
        assert.match(
          table,
          new RegExp(`\\| ${request}[^|]*\\| ${path.replace(/[+]/g, '\\$&')}[^|]*\\| [0-9.]+ \\|`),
          `${request}: ${path}`,
        );
    const results = JSON.parse(await readFile(join(dir, 'cost-sqlite.json'), 'utf8')) as { user: number }[];
    assert.equal(results.length, 14);
    for (const result of results) assert.ok(result.user > 0);
  });
});

test('npm run bench -- --cost --backend postgres serves from the PostgreSQL bench store', {
  timeout: 240_000,
  skip: missing,
}, async () => {
  await inScratch('larder-bench-cost-pg-', async (dir) => {
    // The server processes are told the database's address: without it they could not open the store at all.
    await costRun(dir, '--backend', 'postgres', '--paths', 'off', '--only', 'get-po');
    const results = JSON.parse(await readFile(join(dir, 'cost-postgres.json'), 'utf8')) as { user: number }[];
    assert.equal(results.length, 1);
    assert.ok(results[0]!.user > 0);
  });
});

test('bench/pairs.mjs runs an optional path off and on and writes every pair with its change', {
  timeout: 240_000,
  skip: missing,
}, async () => {
  await inScratch('larder-bench-pairs-', async (dir) => {
    await runBench([
      'bench/pairs.mjs',
      '--pairs',
      '1',
      '--only',
      'get-po',
      '--out',
      dir,
      '--',
      '--smoke',
      '--backend',
      'sqlite',
    ]);
    const table = await readFile(join(dir, 'pairs.md'), 'utf8');
    assert.match(table, /--on LARDER_BENCH_SANDBOX=1/);
    assert.match(
      table,
      /^\| GET purchase order by id \(Larder sqlite\) \| 1 \| [\d,]+, \d\.\d{3} \| [\d,]+, \d\.\d{3} \| [+-]\d+\.\d%/m,
    );
    assert.match(
      table,
      /^- GET purchase order by id \(Larder sqlite\): median change [+-]\d+\.\d% over 1 pairs/m,
    );
    const { pairs } = JSON.parse(await readFile(join(dir, 'pairs.json'), 'utf8')) as {
      pairs: { off: Record<string, { ratio: number }>; on: Record<string, { ratio: number }> }[];
    };
    assert.ok((pairs[0]?.on['GET purchase order by id (Larder sqlite)']?.ratio ?? 0) > 0);
  });
});

test('bench/pairs.mjs --pool pools earlier sets and prints the median change with its interval', async () => {
  await inScratch('larder-bench-pool-', async (dir) => {
    const key = 'GET purchase order by id (Larder sqlite)';
    // Two sets: changes of -10%, -2% and +4% (median -2%, mean -2.7%).
    const set = (ratios: [number, number][]) => ({
      pairs: ratios.map(([off, on]) => ({
        off: { [key]: { ratio: off } },
        on: { [key]: { ratio: on } },
      })),
    });
    await writeFile(
      join(dir, 'a.json'),
      JSON.stringify(
        set([
          [0.5, 0.45],
          [0.5, 0.49],
        ]),
      ),
    );
    await writeFile(join(dir, 'b.json'), JSON.stringify(set([[0.5, 0.52]])));
    const run = await runBench([
      'bench/pairs.mjs',
      '--pool',
      join(dir, 'a.json'),
      '--pool',
      join(dir, 'b.json'),
    ]);
    assert.match(
      run.stdout,
      /^- GET purchase order by id \(Larder sqlite\): 3 pairs from 2 sets; median change -2\.0% \(bootstrap 90% interval -10\.0% to \+4\.0%\), mean -2\.7%\.$/m,
    );
  });
});

/** Runs an in-process microbenchmark on a tiny store of its own in a scratch directory; answers its report. */
const microbench = (prefix: string, script: string, report: string, ...args: string[]) =>
  inScratch(prefix, async (dir) => {
    await runBench(['--import', 'tsx', script, ...args, '--scale', '0.01', '--cache', dir, '--out', dir]);
    return readFile(join(dir, report), 'utf8');
  });

test('bench/page-envelope.ts measures the framed page against the copied one', {
  timeout: 240_000,
}, async () => {
  const table = await microbench(
    'larder-bench-envelope-',
    'bench/page-envelope.ts',
    'page-envelope.md',
    '--pages',
    '20',
    '--rounds',
    '1',
  );
  for (const mode of ['copied', 'framed'])
    assert.match(
      table,
      new RegExp(
        `^\\| First page, 100 purchase orders, includeArchived \\| ${mode} \\| [\\d,]+ \\| \\d+ \\|`,
        'm',
      ),
    );
});

test('bench/page-statement-parts.ts times the page statement with each part taken off', {
  timeout: 240_000,
}, async () => {
  const table = await microbench(
    'larder-bench-statement-parts-',
    'bench/page-statement-parts.ts',
    'page-statement-parts.md',
    '--runs',
    '2',
    '--rounds',
    '1',
  );
  for (const form of [
    'as served',
    'no headroom or tail',
    'bodies joined only',
    'rows read only \\(their lengths summed\\)',
  ])
    assert.match(
      table,
      new RegExp(
        `^\\| First page, 100 purchase orders, includeArchived \\| ${form} \\| \\d+ \\| \\d+ \\|$`,
        'm',
      ),
    );
});

test('bench/page-cache.ts measures GET per page-cache size, with what the server re-read a request', {
  timeout: 120_000,
  skip: missing,
}, async () => {
  await inScratch('larder-bench-page-cache-', async (dir) => {
    // A 10k-entry store is about 13 MB: a 1 MiB cache holds few of the pages its GETs cycle over (a 2k store's
    // fitted well enough to read under 3× a 64 MiB one's), 64 MiB holds them all.
    await runBench([
      '--import',
      'tsx',
      'bench/page-cache.ts',
      '--entries',
      '10000',
      '--cache-mb',
      '1,64',
      '--rounds',
      '1',
      '--duration',
      '1',
      '--connections',
      '10',
      '--cache',
      dir,
      '--out',
      dir,
    ]);
    const table = await readFile(join(dir, 'page-cache.md'), 'utf8');
    const read = (cacheMb: number) => {
      const row = new RegExp(
        `^\\| 1 \\| ${cacheMb} \\| [\\d,]+ \\| \\d+ / \\d+ \\| ([\\d.]+) \\| [\\d.]+ \\| \\d+ \\| 0 \\|$`,
        'm',
      ).exec(table);
      assert.ok(row, `no row for ${cacheMb} MiB in\n${table}`);
      return Number(row[1]);
    };
    assert.ok(read(1) > 4 * read(64), `1 MiB: ${read(1)} KiB a request, 64 MiB: ${read(64)}`);
  });
});
