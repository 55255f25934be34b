import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { REPO } from '../helpers/repo.js';

// Middleware keeps its test beside it (src/middleware/<name>/<name>.test.ts, Hono's layout): the test runner and
// the type check must see it, the build must leave it out of dist.
const repo = `${REPO}/`;
const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
let root: string;

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'larder-layout-'));
  await mkdir(join(root, 'src', 'middleware', 'x'), { recursive: true });
  await mkdir(join(root, 'test', 'a'), { recursive: true });
  for (const name of ['tsconfig.json', 'tsconfig.build.json'])
    await copyFile(join(repo, name), join(root, name));
  await writeFile(join(root, 'src', 'middleware', 'x', 'x.ts'), 'export const x = 1;\n');
  await writeFile(
    join(root, 'src', 'middleware', 'x', 'x.test.ts'),
    "import { x } from './x.js';\nvoid x;\n",
  );
  await writeFile(join(root, 'test', 'a', 'a.test.ts'), 'export {};\n');
});
after(async () => rm(root, { recursive: true, force: true }));

const run = (args: string[]) => {
  const result = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout;
};

const filesOf = (project: string): string[] =>
  (JSON.parse(run([tsc, '-p', project, '--showConfig'])) as { files: string[] }).files;

test('scripts/run-tests.mjs runs the tests under test/ and beside the modules in src/', () => {
  assert.deepEqual(
    run([join(repo, 'scripts', 'run-tests.mjs'), '--list'])
      .trim()
      .split('\n'),
    [join('src', 'middleware', 'x', 'x.test.ts'), join('test', 'a', 'a.test.ts')],
  );
});

test('the type check includes tests in src; the build leaves them out of dist', () => {
  assert.ok(filesOf('tsconfig.json').includes('./src/middleware/x/x.test.ts'));
  assert.deepEqual(filesOf('tsconfig.build.json'), ['./src/middleware/x/x.ts']);
});
