#!/usr/bin/env node
// Where two configurations' CPU differs: self time per function in two .cpuprofile files, the largest increases
// first. Made for `npm run bench -- --cost --separate-processes --cpu-prof DIR`, whose processes serve the same
// number of requests each, so the totals compare directly.
//
//   node bench/profile-diff.mjs DIR/journal-off/0/CPU.….cpuprofile DIR/sandbox/0/CPU.….cpuprofile [--top 30]
import { readFileSync } from 'node:fs';
import { parseToolArgs, usageError } from './tool-usage.mjs';

const USAGE = 'usage: node bench/profile-diff.mjs BASE.cpuprofile OTHER.cpuprofile [--top N]';
const { values, positionals } = parseToolArgs(USAGE, {
  options: { top: { type: 'string', default: '30' } },
  allowPositionals: true,
});
if (positionals.length !== 2) usageError(USAGE);

/** Self time in ms per function (name, file, line), idle left out. */
const selfTimes = (file) => {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const times = new Map();
  profile.samples.forEach((id, i) => {
    const { functionName, url, lineNumber } = nodes.get(id).callFrame;
    if (functionName === '(idle)') return;
    const where = url.replace(/.*node_modules\//, '').replace(/^file:\/\/.*?\/(dist|src)\//, '$1/');
    const key = `${functionName || '(anonymous)'} ${where}${url === '' ? '' : `:${lineNumber + 1}`}`;
    times.set(key, (times.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return times;
};

const [base, other] = positionals.map(selfTimes);
const total = (times) => [...times.values()].reduce((sum, ms) => sum + ms, 0);
console.log(`busy ms: ${total(base).toFixed(0)} → ${total(other).toFixed(0)}`);
const rows = [...new Set([...base.keys(), ...other.keys()])]
  .map((key) => ({ key, from: base.get(key) ?? 0, to: other.get(key) ?? 0 }))
  .sort((a, b) => b.to - b.from - (a.to - a.from));
const top = Number(values.top);
const show = ({ key, from, to }) =>
  console.log(
    `${(to - from).toFixed(1).padStart(8)} ms  ${from.toFixed(0).padStart(6)} → ${to.toFixed(0).padEnd(6)} ${key}`,
  );
rows.slice(0, top).forEach(show);
console.log('…');
rows.slice(-Math.min(8, top)).forEach(show);
