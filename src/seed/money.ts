import type {
  Fee,
  PurchaseOrder,
  PurchasingEntityDiscount,
  PurchasingItemDiscount,
  Tax,
} from '../records/schemas.js';

/**
 * Larder's money model: how a purchase order's numbers relate. The generator computes with these functions;
 * `larder check` recomputes the same rules with its own integer-cent arithmetic (src/check/cents.ts), so a bug
 * here shows up as findings instead of hiding in both.
 *
 * - An adjustment (tax, fee, discount) with a `percentageValue` is worth round2(base × pct / 100) and then
 *   carries that amount in `absoluteValue` too; one without a percentage is worth its `absoluteValue`.
 * - Line: subtotal = round2(orderedQuantity × baseCost). Item discounts and fees use the subtotal as base;
 *   item taxes use round2(subtotal − discounts + taxable fees). total = round2(subtotal − discounts + fees + taxes).
 * - Order: itemsSubtotal = round2(Σ line subtotals); subtotalCost = round2(Σ line totals). Order discounts use
 *   subtotalCost as base, or only the lines without item discounts when `combineWithItemDiscounts` is false;
 *   order fees use subtotalCost; order taxes use round2(subtotalCost − order discounts + taxable order fees).
 *   totalCost = round2(subtotalCost − discounts + fees + taxes).
 * - landedCost (per ordered unit) = round2((line total + share·orderTaxes + share·orderFees − share·orderDiscounts)
 *   / orderedQuantity), each share by its distribution strategy (ITEM_TOTAL_COST: line total / Σ totals;
 *   ITEM_QUANTITY: quantity / Σ quantities; EQUALLY_PER_ITEM: 1 / lines; absent: ITEM_TOTAL_COST).
 */

/** Rounds half away from zero to cents; the epsilon absorbs binary noise such as 1.005 × 100 = 100.4999…. */
export const round2 = (value: number): number => {
  const cents = Math.round(Math.abs(value) * 100 + 1e-7) / 100;
  return value < 0 && cents !== 0 ? -cents : cents;
};

type Adjustment = Tax | Fee | PurchasingItemDiscount | PurchasingEntityDiscount;

export const adjustmentAmount = (adjustment: Adjustment, base: number): number => {
  const percentage = adjustment.percentageValue;
  if (percentage !== undefined && percentage !== null) return round2((base * percentage) / 100);
  return adjustment.absoluteValue ?? 0;
};

const sumAmounts = (adjustments: readonly Adjustment[], base: number): number => {
  let sum = 0;
  for (const adjustment of adjustments) sum += adjustmentAmount(adjustment, base);
  return round2(sum);
};

const taxableFees = (fees: readonly Fee[], base: number): number => {
  let sum = 0;
  for (const fee of fees) if (fee.isTaxable === true) sum += adjustmentAmount(fee, base);
  return round2(sum);
};

export interface LineMoney {
  subtotal: number;
  /** What item taxes are a percentage of. */
  taxBase: number;
  discounts: number;
  fees: number;
  taxes: number;
  total: number;
}

export const lineMoney = (
  quantity: number,
  baseCost: number,
  taxes: readonly Tax[],
  fees: readonly Fee[],
  discounts: readonly PurchasingItemDiscount[],
): LineMoney => {
  const subtotal = round2(quantity * baseCost);
  const discountSum = sumAmounts(discounts, subtotal);
  const feeSum = sumAmounts(fees, subtotal);
  const taxBase = round2(subtotal - discountSum + taxableFees(fees, subtotal));
  const taxSum = sumAmounts(taxes, taxBase);
  return {
    subtotal,
    taxBase,
    discounts: discountSum,
    fees: feeSum,
    taxes: taxSum,
    total: round2(subtotal - discountSum + feeSum + taxSum),
  };
};

/** What the order level needs to know of each line. */
export interface LineSummary {
  quantity: number;
  subtotal: number;
  total: number;
  hasItemDiscounts: boolean;
}

export interface OrderMoney {
  itemsSubtotal: number;
  subtotalCost: number;
  /** Σ totals of the lines without item discounts: the base of discounts not combined with item discounts. */
  undiscountedTotal: number;
  /** What order taxes are a percentage of. */
  taxBase: number;
  discounts: number;
  fees: number;
  taxes: number;
  totalCost: number;
  /** Per line, in line order. */
  landedCosts: number[];
}

type Strategy = NonNullable<NonNullable<PurchaseOrder['distributionStrategies']>['taxDistributionStrategy']>;

const shares = (lines: readonly LineSummary[], strategy: Strategy | undefined): number[] => {
  const weights = lines.map((line) =>
    strategy === 'ITEM_QUANTITY' ? line.quantity : strategy === 'EQUALLY_PER_ITEM' ? 1 : line.total,
  );
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  return weights.map((weight) => (total === 0 ? 1 / lines.length : weight / total));
};

export const orderMoney = (
  lines: readonly LineSummary[],
  entity: PurchaseOrder['purchasingEntityInfo'],
  strategies: PurchaseOrder['distributionStrategies'],
): OrderMoney => {
  let subtotals = 0;
  let totals = 0;
  let undiscountedTotals = 0;
  for (const line of lines) {
    subtotals += line.subtotal;
    totals += line.total;
    if (!line.hasItemDiscounts) undiscountedTotals += line.total;
  }
  const itemsSubtotal = round2(subtotals);
  const subtotalCost = round2(totals);
  const undiscountedTotal = round2(undiscountedTotals);
  let discounts = 0;
  for (const discount of entity.discounts) {
    const base = discount.combineWithItemDiscounts === false ? undiscountedTotal : subtotalCost;
    discounts += adjustmentAmount(discount, base);
  }
  discounts = round2(discounts);
  const fees = sumAmounts(entity.fees, subtotalCost);
  const taxBase = round2(subtotalCost - discounts + taxableFees(entity.fees, subtotalCost));
  const taxes = sumAmounts(entity.taxes, taxBase);
  const taxShares = shares(lines, strategies?.taxDistributionStrategy);
  const feeShares = shares(lines, strategies?.feesDistributionStrategy);
  const discountShares = shares(lines, strategies?.discountsDistributionStrategy);
  const landedCosts = lines.map((line, i) =>
    round2(
      (line.total + taxShares[i]! * taxes + feeShares[i]! * fees - discountShares[i]! * discounts) /
        line.quantity,
    ),
  );
  return {
    itemsSubtotal,
    subtotalCost,
    undiscountedTotal,
    taxBase,
    discounts,
    fees,
    taxes,
    totalCost: round2(subtotalCost - discounts + fees + taxes),
    landedCosts,
  };
};
