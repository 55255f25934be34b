import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Finding } from '../../src/check/findings.js';
import { REPO } from '../helpers/repo.js';

// `larder check` must not share the generator's money arithmetic: a bug there would make wrong data look right.
const repo = `${REPO}/`;

interface Run {
  quantity: number;
  baseCost: number;
  subtotal: number;
  findings: Finding[];
}

/** Generates and checks a small location in a child process, src/seed/money.ts loaded with `bug` (if any). */
const generateAndCheck = (bug?: string): Run => {
  const hooks = bug === undefined ? [] : ['--import', './test/check/buggy-money/register.mjs'];
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', ...hooks, 'test/check/buggy-money/run-check.ts'],
    { cwd: repo, encoding: 'utf8', env: { ...process.env, LARDER_MONEY_BUG: bug ?? '' } },
  );
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout) as Run;
};

test('nothing under src/check imports the generator (src/seed)', () => {
  const dir = join(repo, 'src', 'check');
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    if (!name.endsWith('.ts')) continue;
    const text = readFileSync(join(dir, name), 'utf8');
    assert.doesNotMatch(text, /from\s+['"][./]*seed\//, `src/check/${name} imports src/seed`);
    assert.doesNotMatch(text, /import\s*\(\s*['"][./]*seed\//, `src/check/${name} imports src/seed`);
  }
});

test('the unchanged generator passes the check', () => {
  assert.deepEqual(generateAndCheck().findings, []);
});

test('a generator whose line subtotals are two cents high everywhere, consistently, fails the check', () => {
  const run = generateAndCheck('subtotal-plus-2c');
  // The bug is really in the generated data: 6 × 43.68 = 262.08.
  assert.equal(Math.round((run.subtotal - run.quantity * run.baseCost) * 100), 2);
  assert.ok(run.findings.length > 0);
  assert.ok(run.findings.every((finding) => finding.kind === 'totals'));
  assert.ok(
    run.findings.some((finding) =>
      /items\[0\]\.orderedItemInfo\.orderedCost\.subtotal is [\d.]+, expected [\d.]+ \(/.test(
        finding.message,
      ),
    ),
    JSON.stringify(run.findings.slice(0, 3)),
  );
});

test('a generator that shares landed costs by quantity whatever the strategy fails the check', () => {
  const run = generateAndCheck('shares-by-quantity');
  assert.ok(
    run.findings.some((finding) => /landedCost is [\d.]+, expected/.test(finding.message)),
    JSON.stringify(run.findings.slice(0, 3)),
  );
});
