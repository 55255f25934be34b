import type { PurchaseOrder } from '../records/schemas.js';
import { CentsSum, dollars, percentOfCents, productCents } from './cents.js';

/**
 * Amounts may differ by a cent from the model (other systems round differently), not more. Compared in cents:
 * a stated amount with sub-cent digits is compared as it is, not rounded first.
 */
const near = (stated: number, expectedCents: number): boolean =>
  Math.abs(stated * 100 - expectedCents) <= 1 + 1e-6;

interface Adjustment {
  absoluteValue?: number | null;
  percentageValue?: number | null;
  isTaxable?: boolean;
  combineWithItemDiscounts?: boolean;
}

const given = (value: number | null | undefined): value is number => value !== null && value !== undefined;

/** Σ of the adjustments' worth, rounded to cents once. */
const total = (adjustments: readonly Adjustment[], baseOf: (adjustment: Adjustment) => number): number => {
  const sum = new CentsSum();
  for (const adjustment of adjustments) {
    if (given(adjustment.percentageValue))
      sum.addCents(percentOfCents(baseOf(adjustment), adjustment.percentageValue));
    else sum.addDollars(adjustment.absoluteValue ?? 0);
  }
  return sum.cents();
};

/** A percentage adjustment that also states its amount must state its percentage of the base, in cents. */
const checkPercentages = (
  problems: string[],
  path: string,
  adjustments: readonly Adjustment[],
  baseOf: (adjustment: Adjustment) => number,
): void => {
  adjustments.forEach((adjustment, i) => {
    const { absoluteValue, percentageValue } = adjustment;
    if (!given(absoluteValue) || !given(percentageValue)) return;
    const base = baseOf(adjustment);
    const expected = percentOfCents(base, percentageValue);
    if (!near(absoluteValue, expected)) {
      problems.push(
        `${path}[${i}].absoluteValue is ${absoluteValue}, but ${percentageValue}% of ${dollars(base)} is ${dollars(expected)}`,
      );
    }
  });
};

const mismatch = (path: string, actual: number, expectedCents: number, how: string): string =>
  `${path} is ${actual}, expected ${dollars(expectedCents)} (${how})`;

interface Line {
  quantity: number;
  subtotal: number;
  total: number;
  hasItemDiscounts: boolean;
}

type Strategy = NonNullable<NonNullable<PurchaseOrder['distributionStrategies']>['taxDistributionStrategy']>;

/** Shares of an order-level amount by the strategy (absent: by line total): weight / Σ weights, or equal. */
const sharesBy = (lines: readonly Line[], strategy: Strategy | undefined) => {
  const weights = lines.map((line) =>
    strategy === 'ITEM_QUANTITY' ? line.quantity : strategy === 'EQUALLY_PER_ITEM' ? 1 : line.total,
  );
  let sum = 0;
  for (const weight of weights) sum += weight;
  return (i: number, amountCents: number): number =>
    sum === 0 ? amountCents / lines.length : (amountCents * weights[i]!) / sum;
};

/**
 * The money problems of one purchase order, as readable sentences: every stated amount is recomputed in cents
 * with the checker's own arithmetic (./cents.ts), never the generator's. Lines without a base cost make the
 * order-level sums unverifiable, so those are skipped rather than guessed.
 */
export const orderMoneyProblems = (order: PurchaseOrder): string[] => {
  const problems: string[] = [];
  const lines: Line[] = [];
  let complete = true;
  order.items.forEach((item, i) => {
    const path = `items[${i}]`;
    const quantity = item.orderedItemInfo.orderedQuantity;
    const cost = item.orderedItemInfo.orderedCost;
    const baseCost = cost?.baseCost;
    if (cost === undefined || !given(baseCost) || quantity <= 0) {
      complete = false;
      return;
    }
    // Line: subtotal, then discounts and fees of the subtotal, taxes of subtotal − discounts + taxable fees.
    const subtotal = productCents(quantity, baseCost);
    const discounts = total(item.discounts, () => subtotal);
    const fees = total(item.fees, () => subtotal);
    const taxable = total(
      item.fees.filter((fee) => fee.isTaxable === true),
      () => subtotal,
    );
    const taxBase = subtotal - discounts + taxable;
    const taxes = total(item.taxes, () => taxBase);
    const lineTotal = subtotal - discounts + fees + taxes;

    const costPath = `${path}.orderedItemInfo.orderedCost`;
    if (given(cost.subtotal) && !near(cost.subtotal, subtotal))
      problems.push(mismatch(`${costPath}.subtotal`, cost.subtotal, subtotal, `${quantity} × ${baseCost}`));
    if (given(cost.total) && !near(cost.total, lineTotal))
      problems.push(
        mismatch(
          `${costPath}.total`,
          cost.total,
          lineTotal,
          'subtotal − discounts + fees + taxes of the line',
        ),
      );
    checkPercentages(problems, `${path}.discounts`, item.discounts, () => subtotal);
    checkPercentages(problems, `${path}.fees`, item.fees, () => subtotal);
    checkPercentages(problems, `${path}.taxes`, item.taxes, () => taxBase);
    item.receivedEvents.forEach((event, j) => {
      const received = event.receivedCosts;
      if (!given(received?.subtotal)) return;
      const unitCost = received.baseCost ?? baseCost;
      const expected = productCents(event.receivedQuantity, unitCost);
      if (!near(received.subtotal, expected)) {
        const receivedPath = `${path}.receivedEvents[${j}].receivedCosts.subtotal`;
        problems.push(
          mismatch(receivedPath, received.subtotal, expected, `${event.receivedQuantity} × ${unitCost}`),
        );
      }
    });
    lines.push({ quantity, subtotal, total: lineTotal, hasItemDiscounts: item.discounts.length > 0 });
  });
  if (!complete || lines.length === 0) return problems;

  // Order: sums of the lines (already whole cents), then the order's own discounts, fees and taxes.
  let itemsSubtotal = 0;
  let subtotalCost = 0;
  let undiscounted = 0;
  for (const line of lines) {
    itemsSubtotal += line.subtotal;
    subtotalCost += line.total;
    if (!line.hasItemDiscounts) undiscounted += line.total;
  }
  const entity = order.purchasingEntityInfo;
  const discountBase = (discount: Adjustment) =>
    discount.combineWithItemDiscounts === false ? undiscounted : subtotalCost;
  const discounts = total(entity.discounts, discountBase);
  const fees = total(entity.fees, () => subtotalCost);
  const taxable = total(
    entity.fees.filter((fee) => fee.isTaxable === true),
    () => subtotalCost,
  );
  const taxBase = subtotalCost - discounts + taxable;
  const taxes = total(entity.taxes, () => taxBase);
  const totalCost = subtotalCost - discounts + fees + taxes;

  const totals = order.purchaseOrderTotals;
  if (given(totals.itemsSubtotal) && !near(totals.itemsSubtotal, itemsSubtotal))
    problems.push(
      mismatch('purchaseOrderTotals.itemsSubtotal', totals.itemsSubtotal, itemsSubtotal, 'Σ line subtotals'),
    );
  if (given(totals.subtotalCost) && !near(totals.subtotalCost, subtotalCost))
    problems.push(
      mismatch('purchaseOrderTotals.subtotalCost', totals.subtotalCost, subtotalCost, 'Σ line totals'),
    );
  if (!near(totals.totalCost, totalCost))
    problems.push(
      mismatch(
        'purchaseOrderTotals.totalCost',
        totals.totalCost,
        totalCost,
        'subtotalCost − order discounts + order fees + order taxes',
      ),
    );
  checkPercentages(problems, 'purchasingEntityInfo.discounts', entity.discounts, discountBase);
  checkPercentages(problems, 'purchasingEntityInfo.fees', entity.fees, () => subtotalCost);
  checkPercentages(problems, 'purchasingEntityInfo.taxes', entity.taxes, () => taxBase);

  // Landed cost per ordered unit: the line total plus its shares of the order's adjustments.
  const strategies = order.distributionStrategies;
  const taxShare = sharesBy(lines, strategies?.taxDistributionStrategy);
  const feeShare = sharesBy(lines, strategies?.feesDistributionStrategy);
  const discountShare = sharesBy(lines, strategies?.discountsDistributionStrategy);
  lines.forEach((line, i) => {
    const landed = order.items[i]!.orderedItemInfo.orderedCost?.landedCost;
    if (!given(landed)) return;
    const cents = line.total + taxShare(i, taxes) + feeShare(i, fees) - discountShare(i, discounts);
    const perUnit = cents / line.quantity;
    // Half away from zero; the epsilon absorbs floating-point noise in the shares.
    const expected = Math.sign(perUnit) * Math.round(Math.abs(perUnit) + 1e-6);
    if (!near(landed, expected))
      problems.push(
        mismatch(
          `items[${i}].orderedItemInfo.orderedCost.landedCost`,
          landed,
          expected,
          'line total plus its share of order adjustments, per unit',
        ),
      );
  });
  return problems;
};
