import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';

/** The README stands alone: its tables render, its links stay inside the repository, its flags are real. */

const repo = fileURLToPath(new URL('../../', import.meta.url));
const readme = await readFile(join(repo, 'README.md'), 'utf8');
const outsideFences = readme.replace(/^```[\s\S]*?^```/gm, (block) => block.replace(/[^\n]/g, ''));

/** The cells of a table row: an escaped pipe (`\|`, as in code spans) stays inside its cell, as GitHub renders it. */
const cells = (row: string): number => row.trim().replace(/\\\|/g, '').split('|').length - 2;

test('every table row has as many cells as its header, and a delimiter row follows each header', () => {
  const lines = outsideFences.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (!line.startsWith('|') || lines[i - 1]?.startsWith('|')) continue;
    const width = cells(line);
    assert.match(
      lines[i + 1] ?? '',
      /^\|(\s*:?-+:?\s*\|)+\s*$/,
      `line ${i + 2}: no delimiter row under the header`,
    );
    assert.equal(cells(lines[i + 1] ?? ''), width, `line ${i + 2}`);
    for (let j = i + 2; lines[j]?.startsWith('|'); j++)
      assert.equal(cells(lines[j] ?? ''), width, `README line ${j + 1} has a different number of cells`);
  }
});

test('links point at files in the repository or headings of the README, never outside it', () => {
  const anchors = new Set(
    [...readme.matchAll(/^#+ (.+)$/gm)].map((match) =>
      (match[1] ?? '')
        .toLowerCase()
        .replace(/[^\w\- ]/g, '')
        .replace(/ /g, '-'),
    ),
  );
  for (const [, target = ''] of outsideFences.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^https?:\/\//.test(target)) continue;
    if (target.startsWith('#')) {
      assert.ok(anchors.has(target.slice(1)), `no heading for ${target}`);
      continue;
    }
    assert.ok(!target.startsWith('/') && !target.startsWith('..'), `${target} points outside the repository`);
    assert.ok(existsSync(join(repo, target.split('#')[0] ?? '')), `${target} does not exist`);
  }
  assert.ok(!/\/work\/|shared\/spec/.test(readme), 'the README names a path outside the repository');
});

test('every serve flag is in the README', async () => {
  let help = '';
  await main(['serve', '--help'], { stdout: (t) => (help += t), stderr: () => {}, env: {}, isTty: false });
  const flags = [...help.matchAll(/^ {2}(--[\w-]+)/gm)].map((match) => match[1] ?? '');
  assert.ok(flags.length > 10);
  for (const flag of flags) assert.ok(readme.includes(flag), `${flag} is not in the README`);
});
