import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Measurement } from '../../bench/load.js';
import { type ScalePoint, scaleChart, scaleGrowth, scalePlan } from '../../bench/scale.js';

const at = (p50: number): Measurement => ({ requestsPerSecond: 1000, p50, p99: p50 + 4, failures: 0 });

const point = (entries: number, get: number, page: number, importRate: number): ScalePoint => ({
  backend: 'sqlite',
  layout: 'spread',
  locations: 100,
  entries,
  purchaseOrders: entries / 11,
  seedRate: 50_000,
  importRate,
  get: at(get),
  firstPage: at(page),
  deepPage: at(page * 2),
  firstPageFiltered: at(page),
  deepPageFiltered: at(page),
  rssMb: 180.4,
  loopDelayMax: 20,
  diskMb: 100,
});

/** Records in each page: full unfiltered pages, and `filtered` in the filtered ones. */
const rows = (filtered: number) => ({
  firstPage: 100,
  deepPage: 100,
  firstPageFiltered: filtered,
  deepPageFiltered: filtered,
});

test('growth is the largest size over the smallest, and a p50 under the 1 ms step at first gets no ratio', () => {
  const [line, ...rest] = scaleGrowth([point(10_000, 0, 4, 30_000), point(1_000_000, 1, 6, 24_000)]);
  assert.equal(rest.length, 0);
  assert.match(line!, /^- sqlite, 100 locations, 10,000 → 1,000,000 entries: /);
  assert.match(line!, /GET p50 0 → 1 ms \(under 1 ms at first\)/);
  assert.match(line!, /first page p50 ×1\.50, deep page p50 ×1\.50/);
  assert.match(line!, /import rate ×0\.80 \(target ≥ 0\.7\); RSS 180 MB/);
  assert.doesNotMatch(line!, /×100/);
});

test('after each size but the smallest, the run measures the smallest again as a control', () => {
  assert.deepEqual(scalePlan([10_000, 100_000, 1_000_000]), [
    { entries: 10_000 },
    { entries: 100_000 },
    { entries: 10_000, controlFor: 100_000 },
    { entries: 1_000_000 },
    { entries: 10_000, controlFor: 1_000_000 },
  ]);
  assert.deepEqual(scalePlan([10_000]), [{ entries: 10_000 }]);
});

test('the largest size is also read against the control measured right after it, and controls are no curve point', () => {
  const lines = scaleGrowth([
    point(10_000, 2, 4, 30_000),
    point(100_000, 2, 5, 27_000),
    { ...point(10_000, 2, 5, 25_000), controlFor: 100_000 },
    // A store asked for at 1M holds about that many entries.
    point(1_000_709, 2, 6, 24_000),
    { ...point(10_000, 2, 6, 20_000), controlFor: 1_000_000 },
  ]);
  assert.equal(lines.length, 2);
  assert.match(lines[0]!, /^- sqlite, 100 locations, 10,000 → 1,000,709 entries: .*import rate ×0\.80 /);
  assert.match(
    lines[1]!,
    /^- sqlite, 100 locations, against a fresh 10,000 store measured right after the 1,000,709 one \(the run's drift taken out\): GET p50 ×1\.00, first page p50 ×1\.00, deep page p50 ×1\.00, .*import rate ×1\.20 \(target ≥ 0\.7\)\.$/,
  );
});

test('the chart draws the curves without their controls', () => {
  const curve = [point(10_000, 2, 4, 30_000), point(1_000_000, 2, 6, 24_000)];
  assert.equal(
    scaleChart([...curve, { ...point(10_000, 9, 9, 9), controlFor: 1_000_000 }]),
    scaleChart(curve),
  );
});

test('a page that held fewer records at the smallest size says so beside its growth', () => {
  const [line] = scaleGrowth([
    { ...point(10_000, 2, 4, 30_000), rows: rows(14) },
    { ...point(1_000_000, 2, 6, 24_000), rows: rows(100) },
  ]);
  assert.match(line!, /first page p50 ×1\.50, deep page p50 ×1\.50, /);
  assert.match(line!, /filtered first\/deep ×1\.50 \(14 → 100 records\) \/ ×1\.50 \(14 → 100 records\) /);
});

test('where the smallest store has short pages, growth is also read from the first store whose pages are full', () => {
  const lines = scaleGrowth([
    { ...point(10_803, 2, 4, 30_000), rows: rows(65) },
    { ...point(80_490, 2, 5, 27_000), rows: rows(100) },
    { ...point(10_803, 2, 4, 26_000), rows: rows(65), controlFor: 100_000 },
    { ...point(901_395, 2, 6, 26_000), rows: rows(100) },
    { ...point(10_025_889, 3, 7.5, 24_000), rows: rows(100) },
  ]);
  assert.equal(lines.length, 2);
  assert.match(lines[0]!, /^- sqlite, 100 locations, 10,803 → 10,025,889 entries: .*\(65 → 100 records\)/);
  assert.equal(
    lines[1],
    "- sqlite, 100 locations, from the smallest store whose pages hold as many records as the largest's, " +
      '80,490 → 10,025,889 entries: GET p50 ×1.50, first page p50 ×1.50, deep page p50 ×1.50, filtered first/deep ' +
      '×1.50 / ×1.50 (target ≤ 1.5); import rate ×0.89 (target ≥ 0.7).',
  );
  // Full pages from the start: no second reading.
  assert.equal(
    scaleGrowth([
      { ...point(10_000, 2, 4, 30_000), rows: rows(100) },
      { ...point(100_000, 2, 5, 27_000), rows: rows(100) },
      { ...point(1_000_000, 2, 6, 24_000), rows: rows(100) },
    ]).length,
    1,
  );
});
