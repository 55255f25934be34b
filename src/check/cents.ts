/**
 * The checker's own money arithmetic, in integer cents. It deliberately shares no code with the generator
 * (src/seed/money.ts computes in floating-point dollars and rounds with an epsilon): if both used one function, a
 * bug in it would make wrong data look right. The rules are the README's ("Money that adds up") and
 * docs/decisions: amounts round half away from zero to cents where the model says so.
 *
 * Inputs are JSON numbers; a number with at most MAX_DECIMALS decimals is read exactly as a scaled integer (from
 * its shortest decimal form), so quantity × cost and percentages of a base are exact integer products, rounded
 * once. Only landed costs (shares of order adjustments divided by a quantity) are computed in floating point.
 */

const MAX_DECIMALS = 6;

/** `value` as an integer numerator over 10^decimals, exact when it has at most MAX_DECIMALS decimals. */
export interface Scaled {
  units: number;
  decimals: number;
}

export const scaled = (value: number): Scaled => {
  // The fewest decimals whose n / 10^d is this very double: its shortest decimal form, as String() would give
  // (n / 10^d is correctly rounded, 10^d being exact), without formatting a string.
  for (let decimals = 0; decimals < MAX_DECIMALS; decimals++) {
    const power = 10 ** decimals;
    const units = Math.round(value * power);
    if (units / power === value) return { units, decimals };
  }
  return { units: Math.round(value * 10 ** MAX_DECIMALS), decimals: MAX_DECIMALS };
};

const divideBig = (n: bigint, d: bigint): number => {
  const magnitude = n < 0n ? -n : n;
  const rounded = (magnitude * 2n + d) / (2n * d);
  return Number(n < 0n ? -rounded : rounded);
};

/** round(numerator / denominator) for integers, halves away from zero; denominator > 0. */
export const divideRounding = (numerator: number, denominator: number): number => {
  if (!Number.isSafeInteger(numerator)) return divideBig(BigInt(Math.round(numerator)), BigInt(denominator));
  const magnitude = Math.abs(numerator);
  const whole = Math.floor(magnitude / denominator);
  const rest = magnitude - whole * denominator;
  const rounded = rest * 2 >= denominator ? whole + 1 : whole;
  return numerator < 0 && rounded !== 0 ? -rounded : rounded;
};

/** Integer n × 10^power, exact for power ≥ 0; rounded half away for power < 0. */
const shift = (n: number, power: number): number =>
  power >= 0 ? n * 10 ** power : divideRounding(n, 10 ** -power);

/** Cents back to dollars, for messages. */
export const dollars = (cents: number): number => cents / 100;

/** quantity × price in cents, rounded once. */
export const productCents = (quantity: number, price: number): number => {
  const a = scaled(quantity);
  const b = scaled(price);
  const product = a.units * b.units;
  const decimals = a.decimals + b.decimals;
  if (Number.isSafeInteger(product)) return shift(product, 2 - decimals);
  const exact = BigInt(a.units) * BigInt(b.units);
  if (decimals <= 2) return Number(exact * 10n ** BigInt(2 - decimals));
  return divideBig(exact, 10n ** BigInt(decimals - 2));
};

/** percentage % of baseCents (an integer), in cents, rounded once. */
export const percentOfCents = (baseCents: number, percentage: number): number => {
  const p = scaled(percentage);
  const denominator = 100 * 10 ** p.decimals;
  const product = baseCents * p.units;
  if (Number.isSafeInteger(product)) return divideRounding(product, denominator);
  return divideBig(BigInt(baseCents) * BigInt(p.units), BigInt(denominator));
};

/** Amounts (possibly with sub-cent digits, as stated) in a fixed sub-cent unit, so sums are exact before rounding. */
const SUB = 10 ** (MAX_DECIMALS - 2);

/** A sum of amounts, kept in millionths of a dollar until rounded to cents. */
export class CentsSum {
  #micros = 0;
  addCents(cents: number): this {
    this.#micros += cents * SUB;
    return this;
  }
  addDollars(dollars: number): this {
    const { units, decimals } = scaled(dollars);
    this.#micros += units * 10 ** (MAX_DECIMALS - decimals);
    return this;
  }
  /** Rounded half away from zero to cents. */
  cents(): number {
    return divideRounding(this.#micros, SUB);
  }
}
