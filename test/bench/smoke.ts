import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runningInCi } from '../helpers/ci.js';
import { runNode } from '../helpers/cli.js';
import { REPO } from '../helpers/repo.js';

/**
 * CI does not run the full bench (minutes on 2 cores); the smoke tests keep every part of it from rotting. They
 * are two files, each well inside the runner's per-file bound on a loaded machine.
 */
export const ROOT = REPO;

/** Runs `body` with a scratch directory of its own, removed afterwards whatever happens. */
export const inScratch = async <T>(prefix: string, body: (dir: string) => Promise<T>): Promise<T> => {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  try {
    return await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

/**
 * The bench's load generator is its own dependency (bench/package.json): `npm run bench` installs it, .ci/run
 * too. Outside CI a checkout that never ran the bench skips these tests and says so; in CI they must run.
 */
export const missing =
  existsSync(join(ROOT, 'bench', 'node_modules', 'autocannon')) || runningInCi()
    ? false
    : 'bench/node_modules is not installed (npm run bench, or npm ci --prefix bench); skipped outside CI';

/** Runs a bench command from the repository root; it must exit 0 (its stderr is the failure message). */
export const runBench = async (args: string[]) => {
  const run = await runNode(args, { cwd: ROOT });
  assert.equal(run.code, 0, run.stderr);
  return run;
};
