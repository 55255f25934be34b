import type { DISTRIBUTION_STRATEGIES } from '../records/schemas.js';
import { buildCatalog, type Catalog } from './catalog.js';
import { buildLocationProfile, type LocationProfile } from './location-profile.js';
import { endOfDate, type GenerateOptions } from './options.js';
import { cumulativeWeights, Random } from './random.js';
import { buildSuppliers, type SupplierProfile } from './suppliers.js';

export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

type Strategy = (typeof DISTRIBUTION_STRATEGIES)[number];

/** Everything fixed about one generated location, plus its clock. */
export interface World {
  options: GenerateOptions;
  profile: LocationProfile;
  suppliers: SupplierProfile[];
  /** Cumulative order weights by supplier (0 for suppliers with nothing to sell). */
  supplierWeights: number[];
  catalog: Catalog;
  /** The location's purchasing settings: how order-level adjustments reach item costs. */
  strategies: { tax: Strategy; fees: Strategy; discounts: Strategy };
  /** First instant of history (UTC midnight of the first day). */
  start: number;
  /** First instant after history: nothing happens at or after it. */
  cutoff: number;
  /** The location's offset from UTC in ms. */
  offset: number;
}

export const buildWorld = (options: GenerateOptions): World => {
  // Separate streams keep the catalog stable when only the order volume or period changes.
  const random = new Random(options.seed, options.locationIndex, 'world');
  const profile = buildLocationProfile(random, options.seed, options.locationIndex);
  const suppliers = buildSuppliers(random, options.suppliers, profile);
  const catalog = buildCatalog(random, options.items, suppliers);
  const cutoff = endOfDate(options.endDate);
  return {
    options,
    profile,
    suppliers,
    supplierWeights: cumulativeWeights(
      suppliers.map((supplier, index) =>
        catalog.bySupplier[index]!.length > 0 ? supplier.kind.orderWeight : 0,
      ),
    ),
    catalog,
    strategies: {
      tax: 'ITEM_TOTAL_COST',
      fees: random.pick(['ITEM_QUANTITY', 'ITEM_TOTAL_COST', 'EQUALLY_PER_ITEM'] as const),
      discounts: random.chance(0.8) ? 'ITEM_TOTAL_COST' : 'ITEM_QUANTITY',
    },
    start: cutoff - options.days * DAY,
    cutoff,
    offset: profile.metro.utcOffset * HOUR,
  };
};

/** UTC instant of `hour` (fractional) local time on local day `day` (0 = first day of history). */
export const localTime = (world: World, day: number, hour: number): number =>
  world.start + day * DAY - world.offset + hour * HOUR;

/** Local day index (0 = first day of history) of an instant. */
export const localDay = (world: World, at: number): number =>
  Math.floor((at + world.offset - world.start) / DAY);

/** 0 = Sunday … 6 = Saturday, local time. */
export const localWeekday = (world: World, at: number): number =>
  (((Math.floor((at + world.offset) / DAY) + 4) % 7) + 7) % 7;
