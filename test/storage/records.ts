import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { INVENTORY_HISTORY, PURCHASE_ORDERS, type RecordRow } from '../../src/records/kinds.js';
import type { InventoryHistoryAdjustmentType, PurchaseOrderStatus } from '../../src/records/schemas.js';
import { StoreError, type StoreErrorCode } from '../../src/shared/errors.js';
import type { ClientRecord, RecordSearch, SigningKeyRecord, Store } from '../../src/storage/store.js';

/** Minimal stand-ins for stored records: the store treats `json` as opaque text, so it only has to round-trip. */

export const T0 = Date.parse('2024-03-01T00:00:00.000Z');

/** A lower-case id that sorts by `n` (the store compares ids byte-wise). */
export const idFor = (n: number): string => `${n.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;

export const purchaseOrder = (
  n: number,
  modifiedAt: number,
  status: PurchaseOrderStatus = 'ORDERED',
  archived = false,
): RecordRow => {
  const id = idFor(n);
  return {
    id,
    modifiedAt,
    values: [status, archived],
    json: JSON.stringify({ id, modifiedDate: new Date(modifiedAt).toISOString(), status, archived, n }),
  };
};

export const inventoryEntry = (
  n: number,
  modifiedAt: number,
  adjustmentType: InventoryHistoryAdjustmentType = 'COUNT',
): RecordRow => {
  const id = idFor(n);
  return {
    id,
    modifiedAt,
    values: [adjustmentType],
    json: JSON.stringify({ inventoryHistoryLogId: id, modifiedDate: new Date(modifiedAt).toISOString(), n }),
  };
};

export const newLocationId = (): string => `loc-${randomUUID()}`;

/** Imports into a new location (committed) and returns its id. */
export const importInto = async (
  store: Store,
  records: { purchaseOrders?: readonly RecordRow[]; inventory?: readonly RecordRow[] },
  locationId = newLocationId(),
): Promise<string> => {
  const session = await store.records.beginImport({ id: locationId });
  if (records.purchaseOrders) await session.put(PURCHASE_ORDERS, records.purchaseOrders);
  if (records.inventory) await session.put(INVENTORY_HISTORY, records.inventory);
  await session.commit();
  return locationId;
};

export const client = (overrides: Partial<ClientRecord> = {}): ClientRecord => ({
  clientId: `client-${randomUUID()}`,
  name: 'Test client',
  secretHash: 'ab'.repeat(32),
  scopes: ['retail.inventory:read'],
  allLocations: false,
  locations: ['loc-a', 'loc-b'],
  createdAt: '2024-03-01T10:00:00.000Z',
  revokedAt: null,
  ...overrides,
});

export const signingKey = (createdAt: string): SigningKeyRecord => {
  const kid = `kid-${randomUUID()}`;
  return {
    kid,
    alg: 'ES256',
    privateJwk: JSON.stringify({ kty: 'EC', kid, d: 'private' }),
    publicJwk: JSON.stringify({ kty: 'EC', kid }),
    createdAt,
    retiredAt: null,
  };
};

/** Stored JSON as text, whichever form the store hands it out in (see StoredJson). */
export const text = (json: string | Uint8Array | undefined): string | undefined =>
  json === undefined || typeof json === 'string' ? json : Buffer.from(json).toString('utf8');

type Bounds = Omit<RecordSearch, 'where' | 'limit'> & { limit?: number };

/** A purchase-order search as the API's filter states it: statuses (empty: any), archived ones only when asked. */
export const purchaseOrderSearch = ({
  statuses = [],
  includeArchived = true,
  limit = 100,
  ...bounds
}: Bounds & { statuses?: readonly PurchaseOrderStatus[]; includeArchived?: boolean }): RecordSearch => ({
  ...bounds,
  limit,
  where: [
    { op: 'anyOf', column: 'status', anyOf: statuses },
    ...(includeArchived ? [] : [{ op: 'equals' as const, column: 'archived', equals: false }]),
  ],
});

/** An inventory search by adjustment types (empty: any). */
export const inventorySearch = ({
  adjustmentTypes = [],
  limit = 100,
  ...bounds
}: Bounds & { adjustmentTypes?: readonly InventoryHistoryAdjustmentType[] }): RecordSearch => ({
  ...bounds,
  limit,
  where: [{ op: 'anyOf', column: 'adjustment_type', anyOf: adjustmentTypes }],
});

/** The indexed values of stored-record stand-ins, by name. */
export const statusOf = (row: RecordRow) => row.values[0] as PurchaseOrderStatus;
export const archivedOf = (row: RecordRow) => row.values[1] as boolean;
export const adjustmentTypeOf = (row: RecordRow) => row.values[0] as InventoryHistoryAdjustmentType;

/** Asserts that `promise` rejects with a StoreError of `code` (and a message matching `message`); returns it. */
export const rejectsWithStoreError = async (
  promise: Promise<unknown>,
  code: StoreErrorCode,
  message?: RegExp,
): Promise<StoreError> => {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof StoreError, `expected a StoreError ${code}, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    if (message !== undefined) assert.match(error.message, message);
    return error;
  }
  assert.fail(`expected a StoreError ${code}, but it resolved`);
};
