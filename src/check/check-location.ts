import {
  type FieldCounts,
  RECORD_KINDS,
  type RecordKindName,
  toFieldCounts,
  zeroCounts,
} from '../records/kinds.js';
import type { Store } from '../storage/store.js';
import type { Finding } from './findings.js';
import { createLocationCheck, type LocationCheck } from './location-check.js';

export interface LocationCheckReport extends FieldCounts {
  locationId: string;
  /** Empty when the location is consistent. */
  findings: Finding[];
}

const ID_FIELDS = RECORD_KINDS.map((kind) => kind.idField).join('|');
const idOf = (json: string): string =>
  new RegExp(`"(?:${ID_FIELDS})":"([^"]*)"`).exec(json)?.[1] ?? '(unknown id)';

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

/**
 * What the consistency rules take of each kind, in the order they need it (inventory before orders). A kind
 * without rules is only counted.
 */
interface Feeder {
  order: number;
  recordType: Finding['recordType'];
  accept: (check: LocationCheck) => (record: unknown) => void;
}

const FEEDERS: Partial<Record<RecordKindName, Feeder>> = {
  inventoryHistory: {
    order: 0,
    recordType: 'inventoryEntry',
    accept: (check) => check.inventoryEntry as (record: unknown) => void,
  },
  purchaseOrders: {
    order: 1,
    recordType: 'purchaseOrder',
    accept: (check) => check.purchaseOrder as (record: unknown) => void,
  },
};

const orderOf = (name: RecordKindName): number => FEEDERS[name]?.order ?? Number.MAX_SAFE_INTEGER;
const SCAN_ORDER = [...RECORD_KINDS].sort((a, b) => orderOf(a.name) - orderOf(b.name));

/** Streams one location's stored records through the consistency rules (inventory first, see LocationCheck). */
export const checkLocation = async (store: Store, locationId: string): Promise<LocationCheckReport> => {
  const check = createLocationCheck(locationId);
  const counts = zeroCounts();
  for (const kind of SCAN_ORDER) {
    const feeder = FEEDERS[kind.name];
    const take = feeder?.accept(check);
    for await (const batch of store.records.scan(kind, locationId)) {
      counts[kind.name] += batch.length;
      if (feeder !== undefined && take !== undefined)
        for (const json of batch) feed<unknown>(check, feeder.recordType, json, take);
    }
  }
  return { locationId, ...toFieldCounts(counts), findings: check.finish() };
};

/** Checks every location of the store, one after the other. */
export const checkStore = async (store: Store): Promise<LocationCheckReport[]> => {
  const reports: LocationCheckReport[] = [];
  for (const location of await store.locations.list()) reports.push(await checkLocation(store, location.id));
  return reports;
};
