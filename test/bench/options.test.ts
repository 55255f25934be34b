import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BenchUsageError, parseOptions, USAGE } from '../../bench/options.js';
import { runNode } from '../helpers/cli.js';
import { ROOT } from './smoke.js';

const parse = (...argv: string[]) => parseOptions(argv, '/tmp/out');

test('a flag the bench does not know is a usage error naming it, with the usage', () => {
  assert.throws(
    () => parse('--durtion', '3'),
    (error) =>
      error instanceof BenchUsageError &&
      error.message.includes("'--durtion'") &&
      error.message.endsWith(USAGE),
  );
});

test('a scenario, cost load or cost path that does not exist is refused, not silently run as nothing', () => {
  assert.throws(() => parse('--only', 'get-po,serach-first'), /--only takes get-po, .*; not serach-first/);
  assert.throws(
    () => parse('--cost', '--only', 'search-ih'),
    /--only takes get-po, search-first; not search-ih/,
  );
  assert.throws(() => parse('--cost', '--paths', 'journal'), /--paths takes off, sandbox, .*; not journal/);
  assert.deepEqual(parse('--only', 'get-po,search-ih').only, ['get-po', 'search-ih']);
  assert.deepEqual(parse('--only', 'import,seed,cold-start').only, ['import', 'seed', 'cold-start']);
  assert.throws(() => parse('--cost', '--only', 'import'), /--only takes get-po, search-first; not import/);
  assert.deepEqual(parse('--cost', '--paths', 'sandbox,metrics').costPaths, ['sandbox', 'metrics']);
});

test("the scale run's --sqlite-cache-mb takes Larder's bounds, and only with --scale", () => {
  assert.equal(parse('--scale', '--sqlite-cache-mb', '128').sqliteCacheMb, 128);
  assert.equal(parse('--scale').sqliteCacheMb, undefined);
  for (const bad of ['0', '1.5', '65537', '64,128'])
    assert.throws(
      () => parse('--scale', '--sqlite-cache-mb', bad),
      new RegExp(
        `^BenchUsageError: --sqlite-cache-mb takes a whole number of MiB from 1 to 65536, not ${bad}\n`,
      ),
    );
  assert.throws(
    () => parse('--sqlite-cache-mb', '128'),
    /--sqlite-cache-mb is for the scale run \(--scale\)/,
  );
});

test('npm run bench -- --help prints the usage and starts nothing; a bad flag exits 2 without a stack', async () => {
  const help = await runNode(['--import', 'tsx', 'bench/run.ts', '--help'], { cwd: ROOT });
  assert.equal(help.code, 0, help.stderr);
  assert.equal(help.stdout, `${USAGE}\n`);
  const bad = await runNode(['--import', 'tsx', 'bench/run.ts', '--backend', 'mysql'], { cwd: ROOT });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^--backend must be sqlite, postgres or both, not mysql\n/);
  assert.doesNotMatch(bad.stderr, /\n\s+at /);
});

test('the bench tools answer --help with their usage and a mistake with exit 2 and no stack', async () => {
  const tools = [
    ['bench/pairs.mjs'],
    ['bench/profile-diff.mjs'],
    ['--import', 'tsx', 'bench/scale-redraw.ts'],
    ['--import', 'tsx', 'bench/page-cache.ts'],
  ];
  for (const tool of tools) {
    const help = await runNode([...tool, '--help'], { cwd: ROOT });
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^usage: node /);
  }
  for (const [tool, message] of [
    [['bench/pairs.mjs', '--pairs', 'x'], /^--pairs takes a whole number of pairs, not x\nusage: /],
    [['bench/pairs.mjs', '--on', 'sandbox'], /^--on takes NAME=VALUE, not sandbox\nusage: /],
    [['bench/profile-diff.mjs', 'one.cpuprofile'], /^usage: /],
    [['--import', 'tsx', 'bench/scale-redraw.ts', '/nowhere'], /^\/nowhere: no scale.json there\nusage: /],
    [
      ['--import', 'tsx', 'bench/page-cache.ts', '--cache-mb', '64,lots'],
      /^--cache-mb takes whole positive numbers, not lots\nusage: /,
    ],
  ] as const) {
    const run = await runNode([...tool], { cwd: ROOT });
    assert.equal(run.code, 2, tool.join(' '));
    assert.match(run.stderr, message);
    assert.doesNotMatch(run.stderr, /\n\s+at /);
  }
});
