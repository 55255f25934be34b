/**
 * An integration's own test suite against Larder's sandbox, as an integrator writes it (node:test here; any runner
 * works the same): it sets up its own location and client, syncs, moves the clock two days on (past its token's
 * expiry), syncs again and gets exactly what changed, and asks the integration report whether it behaved.
 *
 *   LARDER_URL=http://127.0.0.1:8080 LARDER_ADMIN_TOKEN=… node --import tsx --test packages/client/examples/sandbox-suite.ts
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  createClient,
  createSandbox,
  type InventoryHistoryLogEntry,
  LarderApiError,
  type LarderClient,
} from '@larder/client';

const required = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`Set ${name}.`);
  return value;
};

const baseUrl = required('LARDER_URL');
const sandbox = createSandbox({ baseUrl, adminToken: required('LARDER_ADMIN_TOKEN') });
const LOCATION = 'example-suite-kitchen';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const count = (n: number, at: Date, quantityOnHand = 40): InventoryHistoryLogEntry => ({
  inventoryHistoryLogId: id(n),
  itemVersionId: '00000000-0000-4000-8000-0000000000ab',
  createdDate: at.toISOString(),
  modifiedDate: at.toISOString(),
  notes: null,
  adjustmentType: 'COUNT',
  purchaseOrderId: null,
  quantityInfo: { quantityOnHand, quantityVariance: 0 },
  costInfo: { capturedCost: 1.25, landedCost: null },
  userDetails: { id: null, firstName: 'Ana', lastName: 'Ruiz' },
});
const virtualNow = async () => new Date((await sandbox.clock.get()).now);

let clientId: string;
let client: LarderClient;

before(async () => {
  // A world of its own: time stands still until the suite moves it, and the location starts empty.
  await sandbox.clock.set(new Date(), { frozen: true });
  await sandbox.locations.remove(LOCATION).catch((error: unknown) => {
    if (!(error instanceof LarderApiError && error.status === 404)) throw error;
  });
  const now = await virtualNow();
  await sandbox.locations.loadInventoryHistory(
    LOCATION,
    Array.from({ length: 50 }, (_, n) => count(n + 1, new Date(now.getTime() - (50 - n) * 60_000))),
  );
  const credentials = await sandbox.clients.create({ name: 'example suite', locations: [LOCATION] });
  clientId = credentials.clientId;
  client = createClient({ baseUrl, ...credentials });
});

after(async () => {
  await sandbox.locations.remove(LOCATION);
  await sandbox.clock.reset();
});

const synced = async (run: AsyncIterable<InventoryHistoryLogEntry>) => {
  const ids: string[] = [];
  for await (const entry of run) ids.push(entry.inventoryHistoryLogId);
  return ids;
};

test("a sync, then only what changed two days later, past the token's expiry; the report is clean", async () => {
  const first = client.inventoryHistory.sync({ location: LOCATION });
  assert.equal((await synced(first)).length, 50);

  await sandbox.clock.advance({ days: 2 });
  const later = await virtualNow();
  await sandbox.locations.loadInventoryHistory(LOCATION, [count(7, later, 12), count(51, later)]);
  const second = client.inventoryHistory.sync({ location: LOCATION, since: first.watermark });
  assert.deepEqual((await synced(second)).sort(), [id(7), id(51)]);

  // Two days on, the token (a day's, by default) had expired: the server refused it once, the client logged in
  // again and carried on.
  const calls = (await sandbox.requests.list({ clientId })).map(
    (entry) => `${entry.operation} ${entry.status}`,
  );
  const refused = calls.indexOf('searchInventoryHistory 401');
  assert.ok(refused > 0, calls.join(', '));
  assert.equal(calls[refused + 1], 'authenticationLoginPost 200');
  assert.equal(calls.filter((call) => call.endsWith(' 401')).length, 1);

  const report = await sandbox.report(clientId);
  // An empty report of no traffic (a wrong client id) would prove nothing.
  assert.ok(report.requestsJudged > 0);
  assert.deepEqual(report.findings, []);
});
