import type { InventoryHistoryLogEntry, PurchaseOrder } from '../records/schemas.js';
import type { Store } from '../storage/store.js';
import type { Finding } from './findings.js';
import { createLocationCheck, type LocationCheck } from './location-check.js';

export interface LocationCheckReport {
  locationId: string;
  purchaseOrders: number;
  inventoryEntries: number;
  /** Empty when the location is consistent. */
  findings: Finding[];
}

const idOf = (json: string): string =>
  /"(?:id|inventoryHistoryLogId)":"([^"]*)"/.exec(json)?.[1] ?? '(unknown id)';

const feed = <T>(
  check: LocationCheck,
  recordType: Finding['recordType'],
  json: string,
  accept: (record: T) => void,
): void => {
  try {
    accept(JSON.parse(json) as T);
  } catch (error) {
    check.unreadable(recordType, idOf(json), error instanceof Error ? error.message : String(error));
  }
};

/** Streams one location's stored records through the consistency rules (inventory first, see LocationCheck). */
export const checkLocation = async (store: Store, locationId: string): Promise<LocationCheckReport> => {
  const check = createLocationCheck(locationId);
  let inventoryEntries = 0;
  for await (const batch of store.scanInventory(locationId)) {
    inventoryEntries += batch.length;
    for (const json of batch)
      feed<InventoryHistoryLogEntry>(check, 'inventoryEntry', json, check.inventoryEntry);
  }
  let purchaseOrders = 0;
  for await (const batch of store.scanPurchaseOrders(locationId)) {
    purchaseOrders += batch.length;
    for (const json of batch) feed<PurchaseOrder>(check, 'purchaseOrder', json, check.purchaseOrder);
  }
  return { locationId, purchaseOrders, inventoryEntries, findings: check.finish() };
};

/** Checks every location of the store, one after the other. */
export const checkStore = async (store: Store): Promise<LocationCheckReport[]> => {
  const reports: LocationCheckReport[] = [];
  for (const location of await store.listLocations()) reports.push(await checkLocation(store, location.id));
  return reports;
};
