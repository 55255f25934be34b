import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/cli/main.js';
import { ERROR_CATALOG } from '../../src/shared/errors.js';
import { REPO } from '../helpers/repo.js';

/**
 * The README and the pages in docs/ stand alone: their tables render, their links stay inside the repository and
 * land on a file or a heading that exists, and the README's flags are real.
 */

const repo = `${REPO}/`;
const pages = [
  'README.md',
  ...readdirSync(join(repo, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const text = (page: string): string => readFileSync(join(repo, page), 'utf8');
const readme = text('README.md');
const withoutFences = (markdown: string): string =>
  markdown.replace(/^```[\s\S]*?^```/gm, (block) => block.replace(/[^\n]/g, ''));

/** GitHub's anchors for a page's headings. */
const anchors = (markdown: string): Set<string> =>
  new Set(
    [...withoutFences(markdown).matchAll(/^#+ (.+)$/gm)].map((match) =>
      (match[1] ?? '')
        .toLowerCase()
        .replace(/[^\w\- ]/g, '')
        .replace(/ /g, '-'),
    ),
  );

/** The cells of a table row: an escaped pipe (`\|`, as in code spans) stays inside its cell, as GitHub renders it. */
const cells = (row: string): number => row.trim().replace(/\\\|/g, '').split('|').length - 2;

for (const page of pages) {
  const lines = withoutFences(text(page)).split('\n');

  test(`${page}: every table row has as many cells as its header, and a delimiter row follows each header`, () => {
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] ?? '';
      if (!line.startsWith('|') || lines[i - 1]?.startsWith('|')) continue;
      const width = cells(line);
      assert.match(
        lines[i + 1] ?? '',
        /^\|(\s*:?-+:?\s*\|)+\s*$/,
        `${page} line ${i + 2}: no delimiter row under the header`,
      );
      assert.equal(cells(lines[i + 1] ?? ''), width, `${page} line ${i + 2}`);
      for (let j = i + 2; lines[j]?.startsWith('|'); j++)
        assert.equal(cells(lines[j] ?? ''), width, `${page} line ${j + 1} has a different number of cells`);
    }
  });

  test(`${page}: links point at files in the repository or at headings that exist, never outside it`, () => {
    for (const [, target = ''] of lines.join('\n').matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^https?:\/\//.test(target)) continue;
      const [path = '', anchor] = target.split('#');
      const file = path === '' ? join(repo, page) : join(repo, dirname(page), path);
      assert.ok(
        !relative(repo, file).startsWith('..') && !path.startsWith('/'),
        `${page}: ${target} leaves the repository`,
      );
      assert.ok(existsSync(file), `${page}: ${target} does not exist`);
      if (anchor !== undefined && statSync(file).isFile() && file.endsWith('.md'))
        assert.ok(anchors(readFileSync(file, 'utf8')).has(anchor), `${page}: no heading for ${target}`);
    }
    assert.ok(!/\/work\/|shared\/spec/.test(text(page)), `${page} names a path outside the repository`);
  });
}

const helpOf = async (...argv: string[]) => {
  let help = '';
  await main(argv, { stdout: (t) => (help += t), stderr: () => {}, env: {}, isTty: false });
  return help;
};

test('every flag of every command, and every variable they read, is in the README', async () => {
  const commands = [...(await helpOf('--help')).matchAll(/^ {2}([a-z]+) {2,}/gm)].map(
    (match) => match[1] ?? '',
  );
  assert.ok(commands.includes('serve') && commands.length > 10, commands.join(' '));
  for (const command of commands) {
    const help = await helpOf(command, '--help');
    const flags = [...help.matchAll(/^ {2}(--[\w-]+)/gm)].map((match) => match[1] ?? '');
    assert.ok(flags.length > 0, `larder ${command} --help lists no flags`);
    for (const flag of flags)
      assert.ok(readme.includes(flag), `larder ${command} ${flag} is not in the README`);
    for (const [, variable] of help.matchAll(/\b(LARDER_[A-Z_]+|DATABASE_URL)\b/g))
      assert.ok(readme.includes(variable ?? ''), `larder ${command}'s ${variable} is not in the README`);
  }
});

test('the README names exactly the commands that take no --db', async () => {
  const commands = [...(await helpOf('--help')).matchAll(/^ {2}([a-z]+) {2,}/gm)].map(
    (match) => match[1] ?? '',
  );
  const withoutDb: string[] = [];
  for (const command of commands)
    if (!/^ {2}--db /m.test(await helpOf(command, '--help'))) withoutDb.push(command);
  const listed = /Those that open the database \(every one but ([^)]+)\)/.exec(
    readme.replace(/\s+/g, ' '),
  )?.[1];
  assert.deepEqual(
    [...(listed ?? '').matchAll(/`([a-z]+)`/g)].map((match) => match[1]).sort(),
    withoutDb.sort(),
  );
});

test("the README's Error codes table lists every code the server answers, each with its status, and no other", () => {
  const section = /^## Error codes\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';
  const rows = [...section.matchAll(/^\| (\d{5}) \| (\d{3}) \|/gm)].map(
    ([, code, status]) => `${code} ${status}`,
  );
  assert.deepEqual(
    rows.sort(),
    Object.values(ERROR_CATALOG)
      .map(({ numericCode, status }) => `${numericCode} ${status}`)
      .sort(),
  );
});
