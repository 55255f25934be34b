import type { Static } from '@sinclair/typebox';
import { INVENTORY_HISTORY, PURCHASE_ORDERS, RECORD_KINDS } from '../records/kinds.js';
import type { JournalEntrySchema } from './admin-schemas.js';

/** One answered request, as `GET /_larder/requests` answers it (the schema documents each field). */
export type JournalEntry = Static<typeof JournalEntrySchema>;

/** An entry as one journal lists it: its `id` names the journal too, so the view that merges journals adds it. */
export type JournalRow = Omit<JournalEntry, 'id'>;

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
