import { invalidToken, type RetailGuard } from '../../src/auth/retail-guard.js';
import { INVENTORY_HISTORY, PURCHASE_ORDERS } from '../../src/records/kinds.js';
import type { InventoryHistoryLogEntry, PurchaseOrder } from '../../src/records/schemas.js';
import { createApp } from '../../src/server/app.js';
import { systemClock } from '../../src/shared/clock.js';
import { LarderError } from '../../src/shared/errors.js';
import { silentLogger } from '../../src/shared/logger.js';
import type { Store } from '../../src/storage/store.js';

/** Retail behaviour is tested through the guard seam with a stand-in guard; test/auth covers the real one. */
export const TEST_AUTHORIZATION = 'Bearer retail-test';

export const stubGuard =
  (granted: readonly string[]): RetailGuard =>
  async (authorization, locationId) => {
    // As the real guard answers it: with the Bearer challenge the interface's 401 carries.
    if (authorization !== TEST_AUTHORIZATION) throw invalidToken('The access token is not valid');
    if (locationId !== undefined && !granted.includes(locationId))
      throw new LarderError('ERR_LOCATION_FORBIDDEN');
    return { clientId: 'retail-test', scopes: ['retail:read'] };
  };

export interface CallOptions {
  location?: string | null;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  authorization?: string | null;
}

export const createRetailHarness = async (store: Store, granted: readonly string[]) => {
  const { app } = await createApp({
    store,
    clock: systemClock,
    logger: silentLogger,
    config: { publicUrl: 'http://larder.test', tokenTtlSeconds: 3600, trustProxy: false },
    guard: stubGuard(granted),
  });
  const call = (method: string, path: string, options: CallOptions = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.authorization !== null)
      headers['authorization'] = options.authorization ?? TEST_AUTHORIZATION;
    if (options.location !== null && options.location !== undefined) {
      headers['platform-restaurant-external-id'] = options.location;
    }
    const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    if (body !== undefined && headers['content-type'] === undefined)
      headers['content-type'] = 'application/json';
    return app.request(path, { method, headers, ...(body === undefined ? {} : { body }) });
  };
  return {
    app,
    call,
    search: async (
      kind: 'purchaseOrders' | 'inventoryHistory',
      location: string,
      body: unknown = {},
      query = '',
    ) => call('POST', `/v1/${kind}/search${query}`, { location, body }),
  };
};

export const loadRecords = async (
  store: Store,
  locationId: string,
  records: { purchaseOrders?: readonly PurchaseOrder[]; inventory?: readonly InventoryHistoryLogEntry[] },
): Promise<void> => {
  const session = await store.records.beginImport({ id: locationId });
  await session.put(PURCHASE_ORDERS, (records.purchaseOrders ?? []).map(PURCHASE_ORDERS.toRow));
  await session.put(INVENTORY_HISTORY, (records.inventory ?? []).map(INVENTORY_HISTORY.toRow));
  await session.commit();
};

export interface PageEnvelope<T = Record<string, unknown>> {
  currentPageToken: string;
  nextPageToken: string;
  data: T[];
}
