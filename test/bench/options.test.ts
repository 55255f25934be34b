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
  assert.deepEqual(parse('--cost', '--paths', 'sandbox,metrics').costPaths, ['sandbox', 'metrics']);
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
