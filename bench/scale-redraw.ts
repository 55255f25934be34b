import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ScalePoint, scaleChart, scaleGrowth } from './scale.js';

/**
 * Redraws a committed scale run's chart and its growth summary (the `- ` lines of scale.md) from its scale.json,
 * after a change to how they are drawn; the measured table and the run's own text stay as they were written.
 *
 *   node --import tsx bench/scale-redraw.ts DIR [DIR …]
 */
for (const dir of process.argv.slice(2)) {
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
