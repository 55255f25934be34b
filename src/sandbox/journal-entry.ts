import type { Static } from '@sinclair/typebox';
import { INVENTORY_HISTORY, PURCHASE_ORDERS, RECORD_KINDS } from '../records/kinds.js';
import type { JournalEntrySchema } from './admin-schemas.js';

/** One answered request, as `GET /_larder/requests` answers it (the schema documents each field). */
export type JournalEntry = Static<typeof JournalEntrySchema>;

/**
 * An entry as the admin API's journal view lists it to the report and the routes: with its `stamp`, where it was
 * recorded on the host's monotonic clock (see src/sandbox/journal.ts). Only for ordering: the API leaves it out.
 */
export type StampedEntry = JournalEntry & { stamp: number };

/** An entry as one journal lists it: its `id` names the journal too, so the view that merges journals adds it. */
export type JournalRow = Omit<StampedEntry, 'id'>;

/**
 * The order entries are listed and judged in: by arrival on the virtual clock, and those of one instant (a frozen
 * clock, or one millisecond) in the order they were answered, across workers too: in one process that is the
 * order of `seq`, but under --workers each worker counts its own.
 */
export const byArrival = (
  a: Pick<StampedEntry, 'timeMs' | 'stamp'>,
  b: Pick<StampedEntry, 'timeMs' | 'stamp'>,
) => a.timeMs - b.timeMs || a.stamp - b.stamp;

/** Operation ids, shared by the routes, the OpenAPI document, the journal and the report. */
export const OPERATIONS = {
  login: 'authenticationLoginPost',
  oauthToken: 'oauthToken',
  searchPurchaseOrders: PURCHASE_ORDERS.operations.search,
  getPurchaseOrder: PURCHASE_ORDERS.operations.get,
  searchInventoryHistory: INVENTORY_HISTORY.operations.search,
  getInventoryHistoryEntry: INVENTORY_HISTORY.operations.get,
} as const;

export const OPERATION_IDS: readonly string[] = Object.values(OPERATIONS);

/** The operations that issue tokens, and the retail searches. */
export const TOKEN_OPERATIONS: readonly string[] = [OPERATIONS.login, OPERATIONS.oauthToken];
export const SEARCH_OPERATIONS: readonly string[] = RECORD_KINDS.map((kind) => kind.operations.search);
