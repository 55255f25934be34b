import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Measurement } from '../../bench/load.js';
import { type ScalePoint, scaleGrowth } from '../../bench/scale.js';

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

test('growth is the largest size over the smallest, and a p50 under the 1 ms step at first gets no ratio', () => {
  const [line, ...rest] = scaleGrowth([point(10_000, 0, 4, 30_000), point(1_000_000, 1, 6, 24_000)]);
  assert.equal(rest.length, 0);
  assert.match(line!, /^- sqlite, 100 locations, 10,000 → 1,000,000 entries: /);
  assert.match(line!, /GET p50 0 → 1 ms \(under 1 ms at first\)/);
  assert.match(line!, /first page p50 ×1\.50, deep page p50 ×1\.50/);
  assert.match(line!, /import rate ×0\.80 \(target ≥ 0\.7\); RSS 180 MB/);
  assert.doesNotMatch(line!, /×100/);
});
