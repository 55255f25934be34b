import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CentsSum, divideRounding, percentOfCents, productCents, scaled } from '../../src/check/cents.js';

test('numbers are read exactly from their decimal form', () => {
  assert.deepEqual(scaled(1.005), { units: 1005, decimals: 3 });
  assert.deepEqual(scaled(12), { units: 12, decimals: 0 });
  assert.deepEqual(scaled(-0.1), { units: -1, decimals: 1 });
  assert.deepEqual(scaled(1e-7), { units: 0, decimals: 6 });
});

test('integer division rounds halves away from zero', () => {
  assert.equal(divideRounding(5, 10), 1);
  assert.equal(divideRounding(-5, 10), -1);
  assert.equal(divideRounding(4, 10), 0);
  assert.ok(Object.is(divideRounding(-4, 10), 0));
  assert.equal(divideRounding(2 ** 60, 2 ** 10), 2 ** 50);
});

test('quantity × price and percentages in cents, rounded once, without binary noise', () => {
  assert.equal(productCents(1, 1.005), 101);
  assert.equal(productCents(-1, 1.005), -101);
  assert.equal(productCents(3, 12.5), 3750);
  assert.equal(productCents(2.5, 0.33), 83); // 0.825
  assert.equal(productCents(0.1, 0.1), 1);
  assert.equal(productCents(0.07, 0.07), 0); // 0.0049
  assert.equal(percentOfCents(3625, 10), 363); // 3.625
  assert.equal(percentOfCents(1, 50), 1); // half a cent
  assert.equal(percentOfCents(10_000, 8.875), 888); // 8.875
  assert.equal(percentOfCents(2 ** 40, 99.999999), Math.round((2 ** 40 * 99.999999) / 100));
});

test('sums keep sub-cent amounts until rounded', () => {
  assert.equal(new CentsSum().addDollars(0.004).addDollars(0.004).cents(), 1);
  assert.equal(new CentsSum().addCents(150).addDollars(2.505).cents(), 401);
});
