import type { InventoryHistoryAdjustmentType } from '../records/schemas.js';
import type { CatalogItem } from './catalog.js';
import type { Category } from './catalog-templates.js';
import type { Random } from './random.js';
import { localTime, localWeekday, type World } from './world.js';

/** An adjustment that will happen; the ledger decides its quantity when its turn comes. */
export interface PlannedAdjustment {
  at: number;
  type: InventoryHistoryAdjustmentType;
  item: CatalogItem;
}

interface Rate {
  type: InventoryHistoryAdjustmentType;
  /** Expected entries per day for a 150-item catalog (scaled with the catalog size). */
  perDay: number;
  /** Local hours in which it happens. */
  hours: readonly [number, number];
  /** Categories it applies to; empty = every bought item. */
  categories: readonly Category[];
}

/**
 * Day-to-day adjustments other than receiving and the weekly count. Waste and prep are daily life, theft is
 * rare; transfers in are sometimes followed by a MISSING_DURING_TRANSFER for what did not arrive (see ledger).
 */
const RATES: readonly Rate[] = [
  {
    type: 'WASTED',
    perDay: 2.5,
    hours: [20, 23.5],
    categories: ['Produce', 'Dairy', 'Meat', 'Seafood', 'Bakery', 'Frozen', 'Prep'],
  },
  {
    type: 'EXPIRE',
    perDay: 0.5,
    hours: [6, 9],
    categories: ['Produce', 'Dairy', 'Bakery', 'Seafood', 'Prep'],
  },
  { type: 'DAMAGE', perDay: 0.3, hours: [7, 12], categories: [] },
  { type: 'LOSS', perDay: 0.12, hours: [8, 22], categories: [] },
  { type: 'THEFT', perDay: 0.06, hours: [10, 23], categories: ['Alcohol', 'Meat', 'Seafood', 'Beverages'] },
  { type: 'SAMPLED', perDay: 0.25, hours: [14, 17], categories: ['Alcohol', 'Coffee & Tea', 'Beverages'] },
  { type: 'RESTOCK', perDay: 0.2, hours: [15, 23], categories: [] },
  { type: 'EXTERNAL', perDay: 0.1, hours: [2, 5], categories: [] },
  {
    type: 'TRANSFERRED_INTERNALLY',
    perDay: 0.4,
    hours: [10, 18],
    categories: ['Alcohol', 'Beverages', 'Produce', 'Dry Goods', 'Paper & Disposables'],
  },
  { type: 'TRANSFERRED_TO_OTHER_LOCATION', perDay: 0.15, hours: [9, 16], categories: [] },
  { type: 'AUTO_LINK_TRANSFER_OUT', perDay: 0.12, hours: [9, 16], categories: [] },
  { type: 'AUTO_LINK_TRANSFER_IN', perDay: 0.12, hours: [9, 16], categories: [] },
  { type: 'PRODUCED_MANUALLY', perDay: 1.5, hours: [7, 11], categories: ['Prep'] },
  { type: 'CYCLE_COUNT', perDay: 3, hours: [22, 23.5], categories: ['Meat', 'Seafood', 'Alcohol'] },
];

export interface AdjustmentPlanner {
  /** Adjustments of local day `day`, in no particular order. */
  day(day: number): PlannedAdjustment[];
}

export const createAdjustmentPlanner = (world: World, random: Random): AdjustmentPlanner => {
  const items = world.catalog.items;
  const bought = items.filter((item) => item.category !== 'Prep');
  const scale = items.length / 150;
  const eligible = RATES.map((rate) => {
    const matching = items.filter((item) =>
      rate.categories.length === 0 ? item.category !== 'Prep' : rate.categories.includes(item.category),
    );
    // Production needs prep items; everything else falls back to any bought item in odd catalogs.
    return matching.length > 0 || rate.type === 'PRODUCED_MANUALLY'
      ? matching
      : bought.length > 0
        ? bought
        : items;
  });
  return {
    day: (day) => {
      const planned: PlannedAdjustment[] = [];
      RATES.forEach((rate, index) => {
        const pool = eligible[index]!;
        if (pool.length === 0) return;
        const count = random.count(rate.perDay * scale);
        for (let i = 0; i < count; i++) {
          const at = localTime(world, day, random.between(rate.hours[0], rate.hours[1]));
          planned.push({ at, type: rate.type, item: random.pick(pool) });
        }
      });
      // The weekly count: Monday before opening, every item, one after the other.
      if (localWeekday(world, localTime(world, day, 12)) === 1) {
        let at = localTime(world, day, random.between(6.5, 7.5));
        for (const item of items) {
          at += random.between(3, 12) * 1000;
          planned.push({ at, type: 'COUNT', item });
        }
      }
      return planned;
    },
  };
};
