import type { PurchaseOrder } from '../records/schemas.js';
import { adjustmentAmount, type LineSummary, lineMoney, orderMoney, round2 } from '../seed/money.js';

/** Amounts may differ by a cent from the model (other systems round differently), not more. */
const TOLERANCE = 0.01 + 1e-9;
const near = (a: number, b: number): boolean => Math.abs(a - b) <= TOLERANCE;

interface Adjustment {
  absoluteValue?: number | null;
  percentageValue?: number | null;
  combineWithItemDiscounts?: boolean;
}

/** A percentage adjustment that also states its amount must state round2(base × pct / 100). */
const checkPercentages = (
  problems: string[],
  path: string,
  adjustments: readonly Adjustment[],
  baseOf: (adjustment: Adjustment) => number,
): void => {
  adjustments.forEach((adjustment, i) => {
    const { absoluteValue, percentageValue } = adjustment;
    if (absoluteValue === null || absoluteValue === undefined) return;
    if (percentageValue === null || percentageValue === undefined) return;
    const base = baseOf(adjustment);
    const expected = adjustmentAmount(adjustment, base);
    if (!near(absoluteValue, expected)) {
      problems.push(
        `${path}[${i}].absoluteValue is ${absoluteValue}, but ${percentageValue}% of ${base} is ${expected}`,
      );
    }
  });
};

const mismatch = (path: string, actual: number, expected: number, how: string): string =>
  `${path} is ${actual}, expected ${expected} (${how})`;

/**
 * The money problems of one purchase order, as readable sentences: every stated amount is recomputed with the
 * generator's model (src/seed/money.ts). Lines without a base cost make the order-level sums unverifiable, so
 * those are skipped rather than guessed.
 */
export const orderMoneyProblems = (order: PurchaseOrder): string[] => {
  const problems: string[] = [];
  const summaries: LineSummary[] = [];
  let complete = true;
  order.items.forEach((item, i) => {
    const path = `items[${i}]`;
    const quantity = item.orderedItemInfo.orderedQuantity;
    const cost = item.orderedItemInfo.orderedCost;
    const baseCost = cost?.baseCost;
    if (cost === undefined || baseCost === null || baseCost === undefined || quantity <= 0) {
      complete = false;
      return;
    }
    const money = lineMoney(quantity, baseCost, item.taxes, item.fees, item.discounts);
    const costPath = `${path}.orderedItemInfo.orderedCost`;
    if (cost.subtotal !== null && cost.subtotal !== undefined && !near(cost.subtotal, money.subtotal)) {
      problems.push(
        mismatch(`${costPath}.subtotal`, cost.subtotal, money.subtotal, `${quantity} × ${baseCost}`),
      );
    }
    if (cost.total !== null && cost.total !== undefined && !near(cost.total, money.total)) {
      problems.push(
        mismatch(
          `${costPath}.total`,
          cost.total,
          money.total,
          'subtotal − discounts + fees + taxes of the line',
        ),
      );
    }
    checkPercentages(problems, `${path}.discounts`, item.discounts, () => money.subtotal);
    checkPercentages(problems, `${path}.fees`, item.fees, () => money.subtotal);
    checkPercentages(problems, `${path}.taxes`, item.taxes, () => money.taxBase);
    item.receivedEvents.forEach((event, j) => {
      const received = event.receivedCosts;
      if (received?.subtotal === null || received?.subtotal === undefined) return;
      const unitCost = received.baseCost ?? baseCost;
      const expected = round2(event.receivedQuantity * unitCost);
      if (!near(received.subtotal, expected)) {
        const receivedPath = `${path}.receivedEvents[${j}].receivedCosts.subtotal`;
        problems.push(
          mismatch(receivedPath, received.subtotal, expected, `${event.receivedQuantity} × ${unitCost}`),
        );
      }
    });
    summaries.push({
      quantity,
      subtotal: money.subtotal,
      total: money.total,
      hasItemDiscounts: item.discounts.length > 0,
    });
  });
  if (!complete || summaries.length === 0) return problems;

  const entity = order.purchasingEntityInfo;
  const money = orderMoney(summaries, entity, order.distributionStrategies);
  const totals = order.purchaseOrderTotals;
  if (totals.itemsSubtotal !== null && !near(totals.itemsSubtotal, money.itemsSubtotal)) {
    problems.push(
      mismatch(
        'purchaseOrderTotals.itemsSubtotal',
        totals.itemsSubtotal,
        money.itemsSubtotal,
        'Σ line subtotals',
      ),
    );
  }
  if (
    totals.subtotalCost !== null &&
    totals.subtotalCost !== undefined &&
    !near(totals.subtotalCost, money.subtotalCost)
  ) {
    problems.push(
      mismatch('purchaseOrderTotals.subtotalCost', totals.subtotalCost, money.subtotalCost, 'Σ line totals'),
    );
  }
  if (!near(totals.totalCost, money.totalCost)) {
    problems.push(
      mismatch(
        'purchaseOrderTotals.totalCost',
        totals.totalCost,
        money.totalCost,
        'subtotalCost − order discounts + order fees + order taxes',
      ),
    );
  }
  checkPercentages(problems, 'purchasingEntityInfo.discounts', entity.discounts, (discount) =>
    discount.combineWithItemDiscounts === false ? money.undiscountedTotal : money.subtotalCost,
  );
  checkPercentages(problems, 'purchasingEntityInfo.fees', entity.fees, () => money.subtotalCost);
  checkPercentages(problems, 'purchasingEntityInfo.taxes', entity.taxes, () => money.taxBase);
  order.items.forEach((item, i) => {
    const landed = item.orderedItemInfo.orderedCost?.landedCost;
    const expected = money.landedCosts[i]!;
    if (landed !== null && landed !== undefined && !near(landed, expected)) {
      problems.push(
        mismatch(
          `items[${i}].orderedItemInfo.orderedCost.landedCost`,
          landed,
          expected,
          'line total plus its share of order adjustments, per unit',
        ),
      );
    }
  });
  return problems;
};
