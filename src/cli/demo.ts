import { LOGIN_PATH } from '../auth/auth-service.js';
import { createClientCredentials } from '../auth/clients.js';
import { RETAIL_INVENTORY_READ, RETAIL_READ } from '../auth/scopes.js';
import { describeCounts } from '../records/kinds.js';
import { seedStore } from '../seed/seed-store.js';
import type { Store } from '../storage/store.js';
import type { CommandIo } from './command.js';

/**
 * First start: an empty embedded database becomes a working sandbox (demo locations, data, and a client granted
 * all of them). The demo secret is kept in the clear in this database only, so later starts can print it again;
 * no other secret is ever stored.
 */
export const prepareDemo = async (store: Store, io: CommandIo): Promise<void> => {
  // A shared server (PostgreSQL) is the operators' backend: never fill it with demo data unasked.
  if (!store.capabilities.embedded) return;
  const [locations, clients] = await Promise.all([store.locations.list(), store.auth.listClients()]);
  if (locations.length > 0 || clients.length > 0) return;
  io.stdout('New database: creating demo data (3 locations, 180 days) and a demo client…\n');
  const started = performance.now();
  // Nothing serves yet, so the load may take the database to itself.
  await seedStore(store, { exclusive: true });
  const client = await createClientCredentials(store, {
    name: 'Demo client',
    allLocations: true,
    scopes: [RETAIL_INVENTORY_READ, RETAIL_READ],
  });
  await store.settings.demoClient.set({ clientId: client.clientId, clientSecret: client.clientSecret });
  io.stdout(`Demo data ready in ${((performance.now() - started) / 1000).toFixed(1)} s.\n`);
};

export const printDemo = async (store: Store, publicUrl: string, io: CommandIo): Promise<void> => {
  const [demoClient, locations] = await Promise.all([
    store.settings.demoClient.get(),
    store.locations.list(),
  ]);
  if (demoClient === undefined) {
    if (locations.length === 0)
      io.stdout('The database is empty: load data with `larder import` or `larder seed`.\n');
    return;
  }
  const { clientId, clientSecret } = demoClient;
  const client = await store.auth.getClient(clientId);
  if (client === undefined || client.revokedAt !== null) return;
  const location = locations[0]?.id ?? 'LOCATION_ID';
  const login = JSON.stringify({ clientId, clientSecret, userAccessType: 'PLATFORM_MACHINE_CLIENT' });
  io.stdout(`
Demo client (granted every location; this demo database keeps its secret so it can show it again):
  clientId:     ${clientId}
  clientSecret: ${clientSecret}
Locations:
${locations.map((l) => `  ${l.id}  ${l.name} (${describeCounts(l)})`).join('\n')}

Try it:
  TOKEN=$(curl -s -X POST ${publicUrl}${LOGIN_PATH} -H 'content-type: application/json' \\
    -d '${login}' | node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).token.accessToken')
  curl -s -X POST '${publicUrl}/v1/purchaseOrders/search?pageSize=2' -H "Authorization: Bearer $TOKEN" \\
    -H 'Platform-Restaurant-External-ID: ${location}' -H 'content-type: application/json' -d '{}'

`);
};
