import type { InventoryHistoryLogEntry, PurchaseOrder } from '../records/schemas.js';
import { createAdjustmentPlanner, type PlannedAdjustment } from './adjustment-plan.js';
import { InventoryLedger } from './inventory-ledger.js';
import type { LocationIdentity } from './location-profile.js';
import { type GenerateOptions, resolveGenerateOptions } from './options.js';
import { type PlannedReceipt, planOrder } from './purchase-orders.js';
import { Random } from './random.js';
import { buildWorld, DAY, localTime, localWeekday, type World } from './world.js';

export interface GeneratedBatch {
  /** In creation order, each as it stands at the end of history. */
  purchaseOrders: PurchaseOrder[];
  /** In time order (createdDate = modifiedDate, strictly increasing). */
  inventoryHistory: InventoryHistoryLogEntry[];
}

/** Share of the week's orders placed on each weekday, Sunday first: restaurants order for the weekend midweek. */
const WEEKDAY_SHARE = [0.05, 0.2, 0.17, 0.17, 0.19, 0.15, 0.07] as const;
/** Local hours in which orders are written (after the morning deliveries, until after close). */
const ORDER_HOURS = [9, 23] as const;

type Planned =
  | { at: number; seq: number; receipt: PlannedReceipt }
  | { at: number; seq: number; adjustment: PlannedAdjustment };

export interface LocationGenerator extends LocationIdentity {
  options: GenerateOptions;
  /** Batches in time order (by day); at most `batchSize` purchase orders and entries each. */
  batches(): Generator<GeneratedBatch, void, undefined>;
}

/**
 * One location's history, generated lazily day by day. Memory is bounded by the catalog and the orders still in
 * flight (receipts planned for later days), never by the length of history.
 */
export const createLocationGenerator = (input: Partial<GenerateOptions> = {}): LocationGenerator => {
  const options = resolveGenerateOptions(input);
  const world = buildWorld(options);
  return {
    id: world.profile.id,
    name: world.profile.name,
    options,
    batches: () => generate(world),
  };
};

function* generate(world: World): Generator<GeneratedBatch, void, undefined> {
  const { options } = world;
  const planner = createAdjustmentPlanner(
    world,
    new Random(options.seed, options.locationIndex, 'adjustments'),
  );
  const ledger = new InventoryLedger(world, new Random(options.seed, options.locationIndex, 'inventory'));
  const buckets = new Map<number, Planned[]>();
  let seq = 0;
  const schedule = (planned: Planned): void => {
    if (planned.at >= world.cutoff) return; // it would happen after history ends
    const day = Math.floor((planned.at - world.start) / DAY);
    const bucket = buckets.get(day);
    if (bucket === undefined) buckets.set(day, [planned]);
    else bucket.push(planned);
  };
  const hasSuppliers = (world.supplierWeights[world.supplierWeights.length - 1] ?? 0) > 0;

  const purchaseOrders: PurchaseOrder[] = [];
  const inventory: InventoryHistoryLogEntry[] = ledger.opening();
  // Entries the ledger had to nudge to the cutoff or past it belong to a later history.
  const cutoffIso = new Date(world.cutoff).toISOString();
  const keep = (entry: InventoryHistoryLogEntry): void => {
    if (entry.modifiedDate < cutoffIso) inventory.push(entry);
  };
  let number = 1000;

  // Nothing drawn here depends on the cutoff, so a longer history (same start, later end date) repeats this one
  // up to the old cutoff: each day's order times come from the day's own stream, each order's life from its own.
  for (let day = 0; day < options.days; day++) {
    // Orders of this local day; their receipts land in later days' buckets.
    const dayRandom = new Random(options.seed, options.locationIndex, 'orders', day);
    const weekday = localWeekday(world, localTime(world, day, 12));
    const orders = hasSuppliers ? dayRandom.count(options.ordersPerWeek * WEEKDAY_SHARE[weekday]!) : 0;
    const span = ORDER_HOURS[1] - ORDER_HOURS[0];
    for (let i = 0; i < orders; i++) {
      // Evenly spread with jitter: already in time order, no sort needed at a million orders.
      const createdAt = localTime(world, day, ORDER_HOURS[0] + (span * (i + dayRandom.next())) / orders);
      if (createdAt >= world.cutoff) break;
      const planned = planOrder(world, createdAt, ++number);
      purchaseOrders.push(planned.order);
      for (const receipt of planned.receipts) schedule({ at: receipt.at, seq: seq++, receipt });
    }
    for (const adjustment of planner.day(day)) schedule({ at: adjustment.at, seq: seq++, adjustment });

    // Everything of this UTC day is planned now: US local days start after UTC midnight, and receipts come at
    // least a day after their order. The ledger takes events in time order, so its draws and balances up to any
    // instant depend only on the events before it.
    const events = buckets.get(day) ?? [];
    buckets.delete(day);
    events.sort((a, b) => a.at - b.at || a.seq - b.seq);
    for (const event of events) {
      if ('receipt' in event) keep(ledger.receive(event.receipt));
      else for (const entry of ledger.adjust(event.adjustment)) keep(entry);
    }

    while (purchaseOrders.length >= options.batchSize || inventory.length >= options.batchSize) {
      yield {
        purchaseOrders: purchaseOrders.splice(0, options.batchSize),
        inventoryHistory: inventory.splice(0, options.batchSize),
      };
    }
  }
  if (purchaseOrders.length > 0 || inventory.length > 0)
    yield { purchaseOrders, inventoryHistory: inventory };
}
