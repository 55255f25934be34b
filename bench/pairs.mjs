#!/usr/bin/env node
// The cost of an optional path by the benchmark's own measure: its ratio to the raw server, with the path off and
// on, in alternating runs of bench/run.ts (which measures raw and Larder in the same run). Each pair starts with
// the other configuration than the last, so a machine drifting over the minutes hits both alike.
//
//   node bench/pairs.mjs --pairs 6 --only get-po,search-first --on LARDER_BENCH_SANDBOX=1 --out DIR [run.ts flags…]
//
// Writes DIR/pairs.md (every pair, the drop of the ratio, the median per scenario) and DIR/pairs.json.
//
//   node bench/pairs.mjs --pool A/pairs.json --pool B/pairs.json …
//
// runs nothing: it pools earlier sets' pairs and prints, per scenario, the median and mean change with a bootstrap
// 90% interval of the median. One set of 10–20 pairs on a shared 2-core VM swings by several points; only many
// sets together say on which side of a line a cost falls.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseToolArgs, usageError } from './tool-usage.mjs';

const USAGE = `usage: node bench/pairs.mjs [--pairs 5] [--only get-po,search-first] [--on NAME=VALUE …] [--out DIR] [-- run.ts flags]
       node bench/pairs.mjs --pool A/pairs.json [--pool B/pairs.json …]`;
const { values, positionals } = parseToolArgs(USAGE, {
  options: {
    pairs: { type: 'string', default: '5' },
    only: { type: 'string', default: 'get-po,search-first' },
    on: { type: 'string', multiple: true, default: ['LARDER_BENCH_SANDBOX=1'] },
    out: { type: 'string', default: join('bench', 'results', 'pairs') },
    pool: { type: 'string', multiple: true, default: [] },
  },
  allowPositionals: true,
});
const pairs = Number(values.pairs);
if (!Number.isInteger(pairs) || pairs < 1)
  usageError(USAGE, `--pairs takes a whole number of pairs, not ${values.pairs}`);
for (const kv of values.on)
  if (!/^[A-Z_][A-Z0-9_]*=/.test(kv)) usageError(USAGE, `--on takes NAME=VALUE, not ${kv}`);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const pct = (x) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;

if (values.pool.length > 0) {
  const changes = new Map();
  for (const file of values.pool)
    for (const { off, on } of JSON.parse(readFileSync(file, 'utf8')).pairs)
      for (const scenario of Object.keys(off))
        if (on[scenario] !== undefined)
          changes.set(scenario, [
            ...(changes.get(scenario) ?? []),
            on[scenario].ratio / off[scenario].ratio - 1,
          ]);
  // A seeded generator (mulberry32), so the same sets always print the same interval.
  let seed = 0x5eed;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (const [scenario, xs] of changes) {
    const medians = Array.from({ length: 5000 }, () =>
      median(xs.map(() => xs[Math.floor(random() * xs.length)])),
    );
    medians.sort((a, b) => a - b);
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    process.stdout.write(
      `- ${scenario}: ${xs.length} pairs from ${values.pool.length} sets; median change ${pct(median(xs))} (bootstrap 90% interval ${pct(medians[250])} to ${pct(medians[4750])}), mean ${pct(mean)}.\n`,
    );
  }
  process.exit(0);
}

const onEnv = Object.fromEntries(values.on.map((kv) => kv.split(/=(.*)/s).slice(0, 2)));
mkdirSync(values.out, { recursive: true });

/** One bench run; the Larder rows' ratios by scenario. */
const run = (label, env) => {
  const out = join(values.out, 'runs', label);
  const args = [
    '--import',
    'tsx',
    'bench/run.ts',
    '--only',
    values.only,
    '--no-prism',
    '--out',
    out,
    ...positionals,
  ];
  const result = spawnSync(process.execPath, args, {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, ...env },
  });
  if (result.status !== 0) throw new Error(`bench run ${label} failed (${result.status})`);
  // `--smoke` (as the test passes through) names its results smoke.json.
  const report = JSON.parse(
    readFileSync(join(out, positionals.includes('--smoke') ? 'smoke.json' : 'latest.json'), 'utf8'),
  );
  const ratios = {};
  for (const row of report.rows)
    if (row.server.startsWith('Larder') && typeof row.ratio === 'number')
      ratios[`${row.scenario} (${row.server})`] = { ratio: row.ratio, rate: row.rate };
  return ratios;
};

const results = [];
for (let pair = 1; pair <= pairs; pair++) {
  const order = pair % 2 === 1 ? ['off', 'on'] : ['on', 'off'];
  const got = {};
  for (const which of order) {
    process.stderr.write(`[pairs] pair ${pair} of ${pairs}: ${which}\n`);
    got[which] = run(`${pair}-${which}`, which === 'on' ? onEnv : {});
  }
  results.push({ pair, first: order[0], off: got.off, on: got.on });
}

const scenarios = Object.keys(results[0].off);
const lines = [
  '# An optional path on and off, by the benchmark’s own ratio to raw',
  '',
  `${new Date().toISOString()} · \`node bench/pairs.mjs --pairs ${pairs} --only ${values.only} --on ${values.on.join(' --on ')}${positionals.length > 0 ? ` ${positionals.join(' ')}` : ''}\``,
  '',
  'Each line is one pair of `bench/run.ts` runs (raw and Larder measured in the same run), off and on back to back, the first of each pair alternating. The change is of the unrounded ratio.',
  '',
  '| scenario | pair | off: req/s, ratio | on: req/s, ratio | change of the ratio |',
  '|---|---:|---|---|---:|',
];
const summary = [];
for (const scenario of scenarios) {
  const changes = [];
  for (const { pair, off, on } of results) {
    const change = on[scenario].ratio / off[scenario].ratio - 1;
    changes.push(change);
    lines.push(
      `| ${scenario} | ${pair} | ${Math.round(off[scenario].rate).toLocaleString('en-US')}, ${off[scenario].ratio.toFixed(3)} | ${Math.round(on[scenario].rate).toLocaleString('en-US')}, ${on[scenario].ratio.toFixed(3)} | ${pct(change)} |`,
    );
  }
  const offMedian = median(results.map((r) => r.off[scenario].ratio));
  const onMedian = median(results.map((r) => r.on[scenario].ratio));
  summary.push(
    `- ${scenario}: median change ${pct(median(changes))} over ${changes.length} pairs (from ${pct(Math.min(...changes))} to ${pct(Math.max(...changes))}); median ratio off ${offMedian.toFixed(3)}, on ${onMedian.toFixed(3)} (${pct(onMedian / offMedian - 1)}).`,
  );
}
lines.push('', ...summary, '');
writeFileSync(join(values.out, 'pairs.md'), lines.join('\n'));
writeFileSync(join(values.out, 'pairs.json'), `${JSON.stringify({ pairs: results }, null, 2)}\n`);
process.stdout.write(`${summary.join('\n')}\n`);
