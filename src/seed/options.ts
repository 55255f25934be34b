/** Options of one generated location; the names match the `larder seed` flags. */
export interface GenerateOptions {
  /** Seed of everything generated; the same options give byte-identical records. */
  seed: number;
  /** Which location of the seed (0-based): picks its name, metro, suppliers and catalog. */
  locationIndex: number;
  /** Days of history, ending with `endDate`. */
  days: number;
  suppliers: number;
  items: number;
  ordersPerWeek: number;
  /** Last day of history (UTC, YYYY-MM-DD, inclusive). */
  endDate: string;
  /** Records per yielded batch (purchase orders and inventory entries counted apart). */
  batchSize: number;
}

export const SEED_DEFAULTS = {
  locations: 3,
  days: 180,
  suppliers: 12,
  items: 150,
  ordersPerWeek: 25,
  seed: 42,
  batchSize: 1000,
} as const;

/**
 * Yesterday in UTC: history then reaches up to the start of today, so nothing lies in the future, and a run is
 * reproducible for the whole day (pass `endDate` to reproduce it on any day).
 */
export const defaultEndDate = (now: Date = new Date()): string =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - 1))
    .toISOString()
    .slice(0, 10);

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Epoch ms of the first instant after `endDate` (UTC); throws on anything but a real YYYY-MM-DD date. */
export const endOfDate = (endDate: string): number => {
  const match = DATE.exec(endDate);
  const start =
    match === null ? Number.NaN : Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  if (Number.isNaN(start) || new Date(start).toISOString().slice(0, 10) !== endDate) {
    throw new RangeError(`endDate must be a calendar date YYYY-MM-DD, got "${endDate}"`);
  }
  return start + 86_400_000;
};

const integer = (name: string, value: number, min: number, max: number): number => {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be an integer from ${min} to ${max}, got ${value}`);
  }
  return value;
};

/** Fills defaults and rejects values the generator cannot honour. */
export const resolveGenerateOptions = (options: Partial<GenerateOptions> = {}): GenerateOptions => {
  const resolved: GenerateOptions = {
    seed: integer('seed', options.seed ?? SEED_DEFAULTS.seed, 0, 2 ** 32 - 1),
    locationIndex: integer('locationIndex', options.locationIndex ?? 0, 0, 1_000_000),
    days: integer('days', options.days ?? SEED_DEFAULTS.days, 1, 20 * 366),
    suppliers: integer('suppliers', options.suppliers ?? SEED_DEFAULTS.suppliers, 1, 1000),
    items: integer('items', options.items ?? SEED_DEFAULTS.items, 1, 100_000),
    ordersPerWeek: integer(
      'ordersPerWeek',
      options.ordersPerWeek ?? SEED_DEFAULTS.ordersPerWeek,
      0,
      10_000_000,
    ),
    endDate: options.endDate ?? defaultEndDate(),
    batchSize: integer('batchSize', options.batchSize ?? SEED_DEFAULTS.batchSize, 1, 1_000_000),
  };
  endOfDate(resolved.endDate);
  return resolved;
};
