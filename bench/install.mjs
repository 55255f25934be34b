#!/usr/bin/env node
// The bench's peers (Prism, autocannon) are not the server's dependencies: they live in bench/package.json and
// are installed into bench/node_modules on the first `npm run bench` (again when bench/package-lock.json
// changes), so a user's `npm install` of Larder never downloads them. CI installs them in .ci/run.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

const bench = import.meta.dirname;
const lock = join(bench, 'package-lock.json');
// npm writes this after every install: older than the lockfile means the install is stale.
const installed = join(bench, 'node_modules', '.package-lock.json');

if (!existsSync(installed) || statSync(installed).mtimeMs < statSync(lock).mtimeMs) {
  console.error('bench: installing its own dependencies (Prism, autocannon) into bench/node_modules…');
  // Under `npm run`, npm_execpath is the npm that runs us; otherwise the npm on PATH.
  const npm = process.env['npm_execpath'];
  const args = ['ci', '--prefix', bench, '--no-audit', '--no-fund'];
  const result = npm?.endsWith('.js')
    ? spawnSync(process.execPath, [npm, ...args], { stdio: 'inherit' })
    : spawnSync('npm', args, { stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.status !== 0) {
    console.error('bench: `npm ci --prefix bench` failed');
    process.exit(result.status ?? 1);
  }
}
