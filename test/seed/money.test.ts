import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lineMoney, orderMoney, round2 } from '../../src/seed/money.js';

test('round2 rounds half away from zero, despite binary noise', () => {
  assert.equal(round2(1.005), 1.01);
  assert.equal(round2(-1.005), -1.01);
  assert.equal(round2(2.675), 2.68);
  assert.equal(round2(0.001), 0);
  assert.ok(Object.is(round2(-0.001), 0));
});

test('a line: discounts and fees on the subtotal, taxes on subtotal − discounts + taxable fees', () => {
  const money = lineMoney(
    3,
    12.5, // subtotal 37.50
    [{ name: 'Sales Tax', absoluteValue: null, percentageValue: 10 }],
    [
      { name: 'Split Case Fee', absoluteValue: 2.5, percentageValue: null, isTaxable: true },
      { name: 'Deposit', absoluteValue: 0.6, percentageValue: null, isTaxable: false },
    ],
    [{ name: 'Promo', absoluteValue: null, percentageValue: 10 }], // 3.75
  );
  // tax base 37.50 − 3.75 + 2.50 = 36.25 → tax 3.63 (3.625 rounds up)
  assert.deepEqual(money, {
    subtotal: 37.5,
    taxBase: 36.25,
    discounts: 3.75,
    fees: 3.1,
    taxes: 3.63,
    total: 40.48,
  });
});

test('an order: totals, discount bases and landed costs by strategy', () => {
  const lines = [
    { quantity: 2, subtotal: 100, total: 100, hasItemDiscounts: false },
    { quantity: 8, subtotal: 60, total: 50, hasItemDiscounts: true },
  ];
  const entity = {
    taxes: [{ name: 'Sales Tax', absoluteValue: null, percentageValue: 5 }],
    fees: [{ name: 'Delivery Fee', absoluteValue: 20, percentageValue: null, isTaxable: true }],
    discounts: [
      { name: 'Volume', absoluteValue: null, percentageValue: 10, combineWithItemDiscounts: false }, // 10% of 100
      { name: 'Credit', absoluteValue: 5, percentageValue: null, combineWithItemDiscounts: true },
    ],
  };
  const money = orderMoney(lines, entity, {
    taxDistributionStrategy: 'ITEM_TOTAL_COST',
    feesDistributionStrategy: 'EQUALLY_PER_ITEM',
    discountsDistributionStrategy: 'ITEM_QUANTITY',
  });
  assert.equal(money.itemsSubtotal, 160);
  assert.equal(money.subtotalCost, 150);
  assert.equal(money.undiscountedTotal, 100);
  assert.equal(money.discounts, 15);
  assert.equal(money.fees, 20);
  assert.equal(money.taxBase, 155); // 150 − 15 + 20
  assert.equal(money.taxes, 7.75);
  assert.equal(money.totalCost, 162.75);
  // line 1: (100 + 7.75 × 100/150 + 20 / 2 − 15 × 2/10) / 2 = (100 + 5.1667 + 10 − 3) / 2
  assert.equal(money.landedCosts[0], 56.08);
  // line 2: (50 + 7.75 × 50/150 + 10 − 15 × 8/10) / 8 = (50 + 2.5833 + 10 − 12) / 8
  assert.equal(money.landedCosts[1], 6.32);
});

test('without strategies, order adjustments are distributed by item total cost', () => {
  const lines = [
    { quantity: 1, subtotal: 30, total: 30, hasItemDiscounts: false },
    { quantity: 1, subtotal: 10, total: 10, hasItemDiscounts: false },
  ];
  const entity = {
    taxes: [],
    fees: [{ name: 'Delivery Fee', absoluteValue: 8, percentageValue: null, isTaxable: false }],
    discounts: [],
  };
  assert.deepEqual(orderMoney(lines, entity, undefined).landedCosts, [36, 12]);
});
