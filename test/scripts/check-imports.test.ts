import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { REPO } from '../helpers/repo.js';

const script = join(REPO, 'scripts', 'check-imports.mjs');
const roots: string[] = [];
after(async () => Promise.all(roots.map((root) => rm(root, { recursive: true, force: true }))));

/** A project root whose src holds these files; runs the check on it. */
const check = async (files: Record<string, string>) => {
  const root = await mkdtemp(join(tmpdir(), 'larder-imports-'));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, 'src', path)), { recursive: true });
    await writeFile(join(root, 'src', path), text);
  }
  const run = spawnSync(process.execPath, [script, root], { encoding: 'utf8' });
  return { status: run.status, out: run.stdout + run.stderr };
};

test('folders that import each other only one way pass, whatever the files do inside a folder', async () => {
  const { status, out } = await check({
    'a/one.ts':
      "import { two } from './two.js';\nimport { c } from '../c/c.js';\nexport const one = two + c;\n",
    'a/two.ts': "import { one } from './one.js';\nexport const two = 2;\n",
    'b/deep/b.ts': "import type { A } from '../../a/one.js';\nexport * from '../../c/c.js';\n",
    'c/c.ts':
      "import { readFileSync } from 'node:fs';\n// import { b } from '../b/deep/b.js';\n/* import('../a/one.js') */\nexport const c = 1;\n",
    'main.ts': "import './b/deep/b.js';\n",
  });
  assert.equal(status, 0, out);
  assert.match(out, /no import cycles/);
});

test('a cycle between top-level folders fails and is listed, through static, re-export and dynamic imports', async () => {
  const { status, out } = await check({
    'a/x/one.ts': "import {\n  b,\n} from '../../b/b.js';\nexport const a = b;\n",
    'b/b.ts': "export { c } from '../c/deep/c.js';\nexport const b = 1;\n",
    'c/deep/c.ts': "export const c = 1;\nexport const later = () => import('../../a/x/one.js');\n",
    'd/d.ts': "import { a } from '../a/x/one.js';\n",
    'e/e.ts': "import type { F } from '../f/f.js';\nexport type E = F;\n",
    'f/f.ts': "import type { E } from '../e/e.js';\nexport type F = E;\n",
  });
  assert.equal(status, 1, out);
  assert.match(out, /2 import cycle\(s\)/);
  assert.match(out, /a ⇄ b ⇄ c\n/);
  assert.match(out, /c → a {3}\(e\.g\. src\/c\/deep\/c\.ts → \.\.\/\.\.\/a\/x\/one\.js\)/);
  assert.match(out, /e ⇄ f\n/);
  assert.doesNotMatch(out, /\bd\b ⇄|⇄ d\b/);
});
