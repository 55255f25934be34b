import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO } from '../helpers/repo.js';

const repo = `${REPO}/`;
const read = (path: string) => readFile(join(repo, path), 'utf8');
const json = async (path: string) => JSON.parse(await read(path)) as Record<string, Record<string, string>>;

test('.ci/run fails when PostgreSQL cannot be started, and installs the bench for its smoke test', async () => {
  const script = await read('.ci/run');
  assert.match(script, /^set -euo pipefail$/m);
  assert.doesNotMatch(script, /\|\|\s*true/);
  assert.match(script, /pg_ctlcluster --skip-systemctl-redirect "\$version" main start\n/);
  assert.match(script, /^npm ci --prefix bench\b/m);
  assert.match(script, /^npm test$/m);
});

test('the bench peers are the bench’s dependencies, not the server’s', async () => {
  const root = await json('package.json');
  const bench = await json('bench/package.json');
  for (const name of ['@stoplight/prism-cli', 'autocannon']) {
    assert.equal(root['dependencies']?.[name], undefined, name);
    assert.equal(root['devDependencies']?.[name], undefined, name);
    assert.ok(bench['dependencies']?.[name], `bench/package.json has ${name}`);
  }
  const lock = JSON.parse(await read('package-lock.json')) as { packages: Record<string, unknown> };
  assert.ok(
    !Object.keys(lock.packages).some((path) =>
      /node_modules\/(@stoplight\/prism-cli|autocannon)$/.test(path),
    ),
  );
  const benchLock = JSON.parse(await read('bench/package-lock.json')) as {
    packages: Record<string, unknown>;
  };
  assert.ok('node_modules/autocannon' in benchLock.packages);
  assert.match(root['scripts']!['bench']!, /^node bench\/install\.mjs && /);
});

test('.ci/run installs without dependencies’ scripts, then runs the ones the project allows, before npm test', async () => {
  const script = await read('.ci/run');
  assert.match(script, /^npm ci --ignore-scripts --no-audit --no-fund &$/m);
  const allowed = (await json('package.json'))['allowScripts'] as unknown as Record<string, boolean>;
  const lock = JSON.parse(await read('package-lock.json')) as {
    packages: Record<string, { hasInstallScript?: boolean }>;
  };
  const scripted = Object.entries(lock.packages)
    .filter(([, entry]) => entry.hasInstallScript === true)
    .map(([path]) => path.replace(/^.*node_modules\//, ''));
  assert.ok(scripted.includes('better-sqlite3'));
  const rebuilt = /^npm rebuild ([^&\n]+) &$/m.exec(script)?.[1]?.split(' ') ?? [];
  assert.ok(script.indexOf('npm rebuild') < script.indexOf('\nnpm test'));
  for (const name of scripted)
    if (allowed[name] === true) {
      assert.ok(rebuilt.includes(name), `${name}'s install script runs`);
    } else
      assert.equal(allowed[name], false, `${name} has an install script: allow or deny it in package.json`);
  assert.match(script, /^wait "\$native"$/m);
});

test('a second build with nothing changed is a no-op (npm ci builds, then npm test builds again)', async () => {
  const scripts = (await json('package.json'))['scripts']!;
  // The client workspace package first (the server imports it), both incremental builds (tsc -b).
  assert.equal(scripts['build'], 'npm run build:client && tsc -b tsconfig.build.json');
  assert.equal(scripts['build:client'], 'tsc -b packages/client');
  assert.match(scripts['test']!, /npm run build/);
  const client = spawnSync(
    process.execPath,
    [join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'packages/client', '--verbose'],
    { cwd: repo, encoding: 'utf8' },
  );
  assert.match(client.stdout, /is up to date/, 'npm test built the client already: this build does nothing');
  const dir = await mkdtemp(join(tmpdir(), 'larder-build-'));
  try {
    for (const name of ['tsconfig.json', 'tsconfig.build.json'])
      await copyFile(join(repo, name), join(dir, name));
    await symlink(join(repo, 'node_modules'), join(dir, 'node_modules'), 'dir');
    await writeFile(join(dir, 'package.json'), '{ "type": "module" }\n');
    await mkdir(join(dir, 'src'));
    await writeFile(join(dir, 'src', 'a.ts'), 'export const a = 1;\n');
    const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
    const build = () => {
      const run = spawnSync(process.execPath, [tsc, '-b', 'tsconfig.build.json', '--verbose'], {
        cwd: dir,
        encoding: 'utf8',
      });
      assert.equal(run.status, 0, run.stdout + run.stderr);
      return run.stdout;
    };
    assert.match(build(), /Building project/);
    assert.match(build(), /is up to date/);
    // Without dist/ (its .tsbuildinfo included) it builds again.
    await rm(join(dir, 'dist'), { recursive: true });
    assert.match(build(), /Building project/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('.ci/run installs Debian’s chromium when missing, and npm ci downloads no browser', async () => {
  const script = await read('.ci/run');
  assert.match(script, /apt-get install [^\n]*\bchromium\b/);
  assert.ok(
    script.indexOf('chromium') < script.indexOf('npm ci --ignore-scripts'),
    'started before the installs',
  );
  assert.match(script, /^\[ -z "\$chromium" \] \|\| wait "\$chromium"\nnpm test$/m);
  const root = await json('package.json');
  assert.match(root['devDependencies']!['playwright-core']!, /^\d+\.\d+\.\d+$/);
  const lock = JSON.parse(await read('package-lock.json')) as {
    packages: Record<string, { hasInstallScript?: boolean }>;
  };
  // playwright-core has no install script (it is the browser-less package); the `playwright` package would.
  assert.equal(lock.packages['node_modules/playwright-core']?.hasInstallScript, undefined);
  assert.ok(!('node_modules/playwright' in lock.packages));
});
