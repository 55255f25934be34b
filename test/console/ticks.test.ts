import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { niceTicks } from '../../console/src/ticks.js';

test('the largest value stays inside the chart: the last tick is at or above it', () => {
  // The demo's Beef Short Rib peaks at 227.3 (the axis stopped at 200) and a week's spend at 22,043 (at 20k).
  assert.deepEqual(niceTicks(227.3), [0, 100, 200, 300]);
  assert.deepEqual(niceTicks(22_043), [0, 10_000, 20_000, 30_000]);
  assert.deepEqual(niceTicks(200), [0, 50, 100, 150, 200]);
  assert.deepEqual(niceTicks(0), [0]);
  assert.deepEqual(niceTicks(0.3), [0, 0.1, 0.2, 0.3]);
});

test('for any positive maximum: ticks from 0, ascending, evenly stepped, the last covering it, at most 5', () => {
  fc.assert(
    fc.property(fc.double({ min: 1e-6, max: 1e12, noNaN: true }), (max) => {
      const ticks = niceTicks(max);
      assert.equal(ticks[0], 0);
      assert.ok(ticks.at(-1)! >= max, `${ticks.at(-1)} < ${max}`);
      assert.ok(ticks.length >= 2 && ticks.length <= 5, String(ticks));
      const step = ticks[1]!;
      for (const [n, tick] of ticks.entries()) assert.ok(Math.abs(tick - n * step) <= step * 1e-9);
    }),
  );
});
