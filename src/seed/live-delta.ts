import { createLocationGenerator, type GeneratedBatch } from './generate-location.js';
import { endOfDate, type GenerateOptions, resolveGenerateOptions } from './options.js';
import { DAY } from './world.js';

/** Whole days from one end date to a later one (0 when equal); throws when `to` is before `from`. */
export const daysBetween = (from: string, to: string): number => {
  const days = (endOfDate(to) - endOfDate(from)) / DAY;
  if (days < 0) throw new RangeError(`the new end date ${to} is before the end date ${from}`);
  return days;
};

/**
 * The records of one demo location that are new or changed between two end dates (same seed and start).
 *
 * `options` are those the location was first generated with (its end date required: the default end date moves
 * with the clock). The history is extended, not moved: the same start, `days` grown by the days between the end
 * dates. The generator is prefix-stable, so every record of the first generation that is not yielded here is
 * byte-identical in the longer one, and every record yielded has a modifiedDate at or after the first cutoff
 * (the first instant after `options.endDate`). Upserting the yielded records by id into the first generation
 * gives exactly the longer one; deltas chain (E→E+3 then E+3→E+10 is E→E+10).
 *
 * Batches hold at most `batchSize` records of each kind: purchase orders in creation order, inventory entries in
 * time order. The whole longer history is generated (and filtered), so the cost is that of a full generation.
 */
export function* liveDelta(
  options: Partial<GenerateOptions> & Pick<GenerateOptions, 'endDate'>,
  newEndDate: string,
): Generator<GeneratedBatch, void, undefined> {
  const first = resolveGenerateOptions(options);
  const extra = daysBetween(first.endDate, newEndDate);
  if (extra === 0) return;
  const since = new Date(endOfDate(first.endDate)).toISOString();
  const generator = createLocationGenerator({ ...first, days: first.days + extra, endDate: newEndDate });
  for (const batch of generator.batches()) {
    // ISO dates of one format compare as strings.
    const purchaseOrders = batch.purchaseOrders.filter((order) => order.modifiedDate >= since);
    const inventoryHistory = batch.inventoryHistory.filter((entry) => entry.modifiedDate >= since);
    if (purchaseOrders.length > 0 || inventoryHistory.length > 0) yield { purchaseOrders, inventoryHistory };
  }
}
