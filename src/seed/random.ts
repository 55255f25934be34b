/**
 * A seeded PRNG (sfc32) so that the same options give byte-identical data, ids included. Math.random and
 * crypto are never used by the generator.
 */

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** 32-bit string/number mixing (FNV-1a over the parts, then a murmur finaliser). */
const hashParts = (parts: ReadonlyArray<number | string>): number => {
  let hash = 0x811c9dc5;
  for (const part of parts) {
    const text = `${typeof part}:${part}|`;
    for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  }
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) >>> 0;
};

export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /** Independent streams come from different `parts` (e.g. seed, location index, purpose). */
  constructor(...parts: ReadonlyArray<number | string>) {
    // splitmix32 spreads one 32-bit hash over the 128-bit state.
    let x = hashParts(parts);
    const next = (): number => {
      x = (x + 0x9e3779b9) | 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.u32();
  }

  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.u32() / 4294967296;
  }

  /** Uniform in [min, max). */
  between(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Uniform integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** Index drawn with probability proportional to its weight (weights are non-negative, not all zero). */
  weighted(cumulative: readonly number[]): number {
    const total = cumulative[cumulative.length - 1] ?? 0;
    const target = this.next() * total;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((cumulative[mid] ?? 0) > target) high = mid;
      else low = mid + 1;
    }
    return low;
  }

  /** A random whole count with mean `mean`: the fractional part decides one extra (unbiased rounding). */
  count(mean: number): number {
    const whole = Math.floor(mean);
    return whole + (this.next() < mean - whole ? 1 : 0);
  }

  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      const swap = items[i] as T;
      items[i] = items[j] as T;
      items[j] = swap;
    }
    return items;
  }

  /** A version-4-format UUID drawn from this stream (lower-case, as stored). */
  uuid(): string {
    const a = this.u32();
    const b = this.u32();
    const c = this.u32();
    const d = this.u32();
    return (
      HEX[a >>> 24]! +
      HEX[(a >>> 16) & 255]! +
      HEX[(a >>> 8) & 255]! +
      HEX[a & 255]! +
      '-' +
      HEX[b >>> 24]! +
      HEX[(b >>> 16) & 255]! +
      '-' +
      HEX[((b >>> 8) & 0x0f) | 0x40]! +
      HEX[b & 255]! +
      '-' +
      HEX[((c >>> 24) & 0x3f) | 0x80]! +
      HEX[(c >>> 16) & 255]! +
      '-' +
      HEX[(c >>> 8) & 255]! +
      HEX[c & 255]! +
      HEX[d >>> 24]! +
      HEX[(d >>> 16) & 255]! +
      HEX[(d >>> 8) & 255]! +
      HEX[d & 255]!
    );
  }
}

/** Builds the cumulative weight table `Random.weighted` draws from. */
export const cumulativeWeights = (weights: readonly number[]): number[] => {
  let sum = 0;
  return weights.map((weight) => {
    sum += weight;
    return sum;
  });
};
