import { INVENTORY_HISTORY, PURCHASE_ORDERS, RECORD_KINDS, type RecordKind } from '../records/kinds.js';
import type { InventoryHistoryLogEntry, PurchaseOrder } from '../records/schemas.js';
import type { Cursor, Store, StoredJson } from '../storage/store.js';
import type { LocationCharts, LocationOverview } from './admin-schemas.js';

/**
 * What the web console shows that the retail API does not serve: locations with their record spans, and the
 * aggregates behind its charts. Charts read a bounded window of records through the store's keyset search.
 */

const DAY_MS = 86_400_000;
/** A chart window is at most a year of days. */
export const MAX_CHART_DAYS = 366;
export const DEFAULT_CHART_DAYS = 90;
/** Records of each kind one chart request reads at most; beyond that the answer says `truncated`. */
export const MAX_CHART_RECORDS = 200_000;
const SCAN_BATCH = 1000;

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

export const locationsOverview = async (store: Store): Promise<LocationOverview[]> => {
  const locations = await store.locations.list();
  return Promise.all(
    locations.map(async (location) => {
      const spans = await Promise.all(
        RECORD_KINDS.map(async (kind) => {
          const span = await store.records.span(kind, location.id);
          return [
            kind.name,
            {
              count: location[kind.countField],
              firstModifiedDate: iso(span?.first),
              lastModifiedDate: iso(span?.last),
            },
          ] as const;
        }),
      );
      return {
        id: location.id,
        name: location.name,
        createdAt: location.createdAt,
        records: Object.fromEntries(spans),
      };
    }),
  );
};

const parse = <R>(json: StoredJson): R =>
  JSON.parse(typeof json === 'string' ? json : Buffer.from(json).toString('utf8')) as R;

/** The records of a kind modified at or after `from`, oldest first, at most MAX_CHART_RECORDS of them. */
const walk = async <R>(
  store: Store,
  kind: RecordKind,
  locationId: string,
  from: number,
  visit: (record: R) => void,
): Promise<{ truncated: boolean }> => {
  let after: Cursor | undefined;
  let read = 0;
  for (;;) {
    const rows = await store.records.search(kind, {
      locationId,
      modifiedFrom: from,
      where: [],
      limit: SCAN_BATCH,
      ...(after === undefined ? {} : { after }),
    });
    for (const row of rows) visit(parse<R>(row.json));
    read += rows.length;
    if (rows.length < SCAN_BATCH) return { truncated: false };
    if (read >= MAX_CHART_RECORDS) return { truncated: true };
    after = rows.at(-1);
  }
};

/** Monday 00:00 UTC of the week holding `ms`. */
const weekStart = (ms: number): number => {
  const day = Math.floor(ms / DAY_MS);
  // 1970-01-01 was a Thursday: day 0 is 3 days after a Monday.
  return (day - ((day + 3) % 7)) * DAY_MS;
};

const cents = (amount: number) => Math.round(amount * 100) / 100;

/** Orders that cost money: drafts were never sent and voided ones were called off. */
const SPENDING = (order: PurchaseOrder) => order.status !== 'DRAFT' && order.status !== 'VOIDED';

export interface ChartRequest {
  locationId: string;
  /** The window ends here (the virtual now). */
  now: number;
  days: number;
  /** The item whose stock to chart; default: the one with the most entries in the window. */
  itemVersionId?: string;
}

export const locationCharts = async (store: Store, request: ChartRequest): Promise<LocationCharts> => {
  const { locationId, now } = request;
  const from = now - request.days * DAY_MS;
  const inWindow = (date: string) => {
    const at = Date.parse(date);
    return at >= from && at <= now;
  };

  const names = new Map<string, string>();
  const weeks: number[] = [];
  for (let week = weekStart(from); week <= now; week += 7 * DAY_MS) weeks.push(week);
  const spend = new Map<string, { name: string; weekly: number[] }>();
  const orders = await walk<PurchaseOrder>(store, PURCHASE_ORDERS, locationId, from, (order) => {
    for (const item of order.items) names.set(item.itemVersionId, item.name);
    if (!SPENDING(order) || !inWindow(order.createdDate)) return;
    const supplier = spend.get(order.supplier.id) ?? {
      name: order.supplier.name,
      weekly: weeks.map(() => 0),
    };
    spend.set(order.supplier.id, supplier);
    const index = weeks.indexOf(weekStart(Date.parse(order.createdDate)));
    if (index >= 0) supplier.weekly[index]! += order.purchaseOrderTotals.totalCost;
  });

  const entries = new Map<string, InventoryHistoryLogEntry[]>();
  const inventory = await walk<InventoryHistoryLogEntry>(
    store,
    INVENTORY_HISTORY,
    locationId,
    from,
    (entry) => {
      if (!inWindow(entry.createdDate)) return;
      const list = entries.get(entry.itemVersionId) ?? [];
      entries.set(entry.itemVersionId, list);
      list.push(entry);
    },
  );

  const items = [...entries]
    .map(([itemVersionId, list]) => ({
      itemVersionId,
      name: names.get(itemVersionId) ?? null,
      entries: list.length,
    }))
    .sort((a, b) => b.entries - a.entries || a.itemVersionId.localeCompare(b.itemVersionId));
  const chosen = (request.itemVersionId ?? items[0]?.itemVersionId)?.toLowerCase();
  const series = chosen === undefined ? undefined : entries.get(chosen);

  return {
    locationId,
    from: new Date(from).toISOString(),
    to: new Date(now).toISOString(),
    truncated: orders.truncated || inventory.truncated,
    items,
    stock:
      chosen === undefined
        ? null
        : {
            itemVersionId: chosen,
            name: names.get(chosen) ?? null,
            points: (series ?? [])
              .map((entry) => ({
                at: entry.createdDate,
                quantityOnHand: entry.quantityInfo.quantityOnHand,
                adjustmentType: entry.adjustmentType,
                inventoryHistoryLogId: entry.inventoryHistoryLogId,
              }))
              .sort((a, b) => Date.parse(a.at) - Date.parse(b.at)),
          },
    spend: {
      weeks: weeks.map((week) => new Date(week).toISOString().slice(0, 10)),
      suppliers: [...spend]
        .map(([supplierId, { name, weekly }]) => ({
          supplierId,
          name,
          weekly: weekly.map(cents),
          total: cents(weekly.reduce((sum, amount) => sum + amount, 0)),
        }))
        .sort((a, b) => b.total - a.total || a.name.localeCompare(b.name)),
    },
  };
};
