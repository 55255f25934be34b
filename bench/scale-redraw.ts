import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ScalePoint, scaleChart, scaleGrowth } from './scale.js';

/**
 * Redraws a committed scale run's chart and its growth summary (the `- ` lines of scale.md) from its scale.json,
 * after a change to how they are drawn; the measured table and the run's own text stay as they were written.
 *
 *   node --import tsx bench/scale-redraw.ts DIR [DIR …]
 */
const USAGE = 'usage: node --import tsx bench/scale-redraw.ts DIR [DIR …]   (each DIR holds a --scale run)';
const dirs = process.argv.slice(2);
if (dirs.includes('--help') || dirs.includes('-h')) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const unusable = dirs.length === 0 ? [''] : dirs.filter((dir) => !existsSync(join(dir, 'scale.json')));
if (unusable.length > 0) {
  process.stderr.write(
    `${unusable.map((dir) => (dir === '' ? '' : `${dir}: no scale.json there\n`)).join('')}${USAGE}\n`,
  );
  process.exit(2);
}
for (const dir of dirs) {
  const { points } = JSON.parse(readFileSync(join(dir, 'scale.json'), 'utf8')) as { points: ScalePoint[] };
  writeFileSync(join(dir, 'scale.svg'), scaleChart(points));
  const lines = readFileSync(join(dir, 'scale.md'), 'utf8').split('\n');
  const start = lines.findIndex((line) => line.startsWith('- '));
  if (start === -1) throw new Error(`${dir}/scale.md has no growth summary`);
  let end = start;
  while (lines[end]?.startsWith('- ')) end++;
  lines.splice(start, end - start, ...scaleGrowth(points));
  writeFileSync(join(dir, 'scale.md'), lines.join('\n'));
}
