#!/usr/bin/env node
// Compiles the tests, with the sources they import, into .test-build/ (tsconfig.test.json), so `npm test` runs them
// as plain JavaScript. Under tsx each of the ~170 test processes spent about 0.85 s of CPU starting up (Node 20
// runs loader hooks on a thread of their own, and tsx transforms every file it loads): about 70 s of a 2-core CI
// run. The compile is also the type check, incremental: a second run with nothing changed takes about 6 s.
// What tsc does not emit is linked where the compiled files look for it: the tests' own .mjs helpers (Node loads a
// linked module from its real path, so their imports resolve as in the source tree), and package.json and the
// console's build, which src/cli/main.ts and src/sandbox/console-assets.ts find relative to themselves.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';

process.chdir(join(import.meta.dirname, '..'));
const OUT = '.test-build';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.test.json'], { stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

const link = (path) => {
  const at = join(OUT, path);
  rmSync(at, { force: true, recursive: true });
  mkdirSync(dirname(at), { recursive: true });
  symlinkSync(relative(dirname(at), path), at);
};
const others = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return others(path);
    return entry.name.endsWith('.ts') ? [] : [path];
  });
for (const file of ['test', 'src', 'packages/client/test'].flatMap(others)) link(file);
link('package.json');
link('console/dist');
// The bench's own dependencies (autocannon) sit in bench/node_modules, found relative to bench/.
link('bench/node_modules');
