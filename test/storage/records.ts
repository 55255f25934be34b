import { randomUUID } from 'node:crypto';
import type { InventoryHistoryAdjustmentType, PurchaseOrderStatus } from '../../src/records/schemas.js';
import type {
  ClientRecord,
  InventoryRecord,
  PurchaseOrderRecord,
  SigningKeyRecord,
  Store,
} from '../../src/storage/store.js';

/** Minimal stand-ins for stored records: the store treats `json` as opaque text, so it only has to round-trip. */

export const T0 = Date.parse('2024-03-01T00:00:00.000Z');

/** A lower-case id that sorts by `n` (the store compares ids byte-wise). */
export const idFor = (n: number): string => `${n.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;

export const purchaseOrder = (
  n: number,
  modifiedAt: number,
  status: PurchaseOrderStatus = 'ORDERED',
  archived = false,
): PurchaseOrderRecord => {
  const id = idFor(n);
  return {
    id,
    modifiedAt,
    status,
    archived,
    json: JSON.stringify({ id, modifiedDate: new Date(modifiedAt).toISOString(), status, archived, n }),
  };
};

export const inventoryEntry = (
  n: number,
  modifiedAt: number,
  adjustmentType: InventoryHistoryAdjustmentType = 'COUNT',
): InventoryRecord => {
  const id = idFor(n);
  return {
    id,
    modifiedAt,
    adjustmentType,
    json: JSON.stringify({ inventoryHistoryLogId: id, modifiedDate: new Date(modifiedAt).toISOString(), n }),
  };
};

export const newLocationId = (): string => `loc-${randomUUID()}`;

/** Imports into a new location (committed) and returns its id. */
export const importInto = async (
  store: Store,
  records: { purchaseOrders?: readonly PurchaseOrderRecord[]; inventory?: readonly InventoryRecord[] },
  locationId = newLocationId(),
): Promise<string> => {
  const session = await store.beginImport({ id: locationId });
  if (records.purchaseOrders) await session.putPurchaseOrders(records.purchaseOrders);
  if (records.inventory) await session.putInventoryEntries(records.inventory);
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
