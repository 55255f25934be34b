import { setImmediate } from 'node:timers/promises';
import { LOGIN_PATH } from '../auth/auth-service.js';
import { createClientCredentials, updateClientGrants } from '../auth/clients.js';
import { RETAIL_INVENTORY_READ, RETAIL_READ } from '../auth/scopes.js';
import { describeCounts, RECORD_KINDS } from '../records/kinds.js';
import { daysBetween, liveDelta } from '../seed/live-delta.js';
import { SEED_DEFAULTS } from '../seed/options.js';
import { seedStore } from '../seed/seed-store.js';
import type { Clock } from '../shared/clock.js';
import { LarderError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { CONSOLE_PATH } from '../shared/own-paths.js';
import { randomToken } from '../shared/random-token.js';
import type { LiveDemoState, Store } from '../storage/store.js';

/**
 * The demo sandbox: the first start of an empty embedded database (demo locations, data, a demo client and an
 * admin token), its reset, and the live demo locations that keep trading as the (virtual) clock passes midnight.
 * The demo secret and admin token are kept in this database only, so later starts can print them again (sealed
 * under the key-encryption key when one is given, as the other secrets are); no other client secret is stored.
 */

const SCOPES = [RETAIL_INVENTORY_READ, RETAIL_READ];

/** The last whole UTC day before `epochMs`: demo history always ends yesterday, as the seed's default does. */
export const lastCompleteDay = (epochMs: number): string =>
  new Date(epochMs - 86_400_000).toISOString().slice(0, 10);

const seedDemo = async (
  store: Store,
  state: Pick<LiveDemoState, 'seed' | 'firstDays' | 'firstEndDate'>,
  exclusive: boolean,
) => {
  const result = await seedStore(store, {
    seed: state.seed,
    days: state.firstDays,
    endDate: state.firstEndDate,
    exclusive,
  });
  return result.locations.map((location, locationIndex) => ({ id: location.id, locationIndex }));
};

/**
 * First start: an empty embedded database becomes a working sandbox, unless `wanted` is false (`--no-demo`).
 * Either way the choice is recorded, so a database first started without the demo, or that ever held data of its
 * own, never gets demo locations or the demo client later, whatever flags follow. Says what it did through `print`.
 */
export const prepareDemo = async (
  store: Store,
  clock: Clock,
  print: (text: string) => void,
  wanted = true,
): Promise<void> => {
  // A shared server (PostgreSQL) is the operators' backend: never fill it with demo data unasked.
  if (!store.capabilities.embedded) return;
  if ((await store.settings.databaseKind.get()) !== undefined) return;
  const [locations, clients, demoClient] = await Promise.all([
    store.locations.list(),
    store.auth.listClients(),
    store.settings.demoClient.get(),
  ]);
  // Databases from before the kind was recorded: a demo one has its demo client.
  if (demoClient !== undefined) {
    await store.settings.databaseKind.ensure('demo');
    return;
  }
  if (!wanted || locations.length > 0 || clients.length > 0) {
    await store.settings.databaseKind.ensure('plain');
    return;
  }
  print(
    `New database: creating demo data (${SEED_DEFAULTS.locations} locations, ${SEED_DEFAULTS.days} days) and a demo client…\n`,
  );
  const started = performance.now();
  const first = {
    seed: SEED_DEFAULTS.seed,
    firstDays: SEED_DEFAULTS.days,
    firstEndDate: lastCompleteDay(clock.now()),
  };
  // Nothing serves yet, so the load may take the database to itself.
  const demoLocations = await seedDemo(store, first, true);
  // Granted the demo locations by id: a location imported later is never readable with the printed secret.
  const client = await createClientCredentials(
    store,
    { name: 'Demo client', locations: demoLocations.map((l) => l.id), scopes: SCOPES },
    clock,
  );
  await store.settings.demoClient.set({ clientId: client.clientId, clientSecret: client.clientSecret });
  await store.settings.demoAdminToken.set(randomToken(24));
  await store.settings.liveDemo.set({
    ...first,
    days: first.firstDays,
    endDate: first.firstEndDate,
    locations: demoLocations,
  });
  await store.settings.databaseKind.ensure('demo');
  print(`Demo data ready in ${((performance.now() - started) / 1000).toFixed(1)} s.\n`);
};

/** What a demo database shows at start: its client's credentials, its locations and the admin token. */
export interface DemoCredentials {
  clientId: string;
  clientSecret: string;
  locations: { id: string; name: string; records: string }[];
  /** The admin API is on. */
  adminOn?: boolean;
  /** Present when the admin API is on with the demo's own admin token. */
  adminToken?: string;
}

/** The demo's credentials, or undefined when this is not a demo database (or its client was revoked). */
export const demoCredentials = async (
  store: Store,
  /** The admin token in force (`--admin-token` or the demo's), or undefined when the admin API is off. */
  adminInForce: string | undefined,
): Promise<DemoCredentials | undefined> => {
  const [demoClient, adminToken, locations] = await Promise.all([
    store.settings.demoClient.get(),
    store.settings.demoAdminToken.get(),
    store.locations.list(),
  ]);
  if (demoClient === undefined) return undefined;
  const client = await store.auth.getClient(demoClient.clientId);
  if (client === undefined || client.revokedAt !== null) return undefined;
  return {
    clientId: demoClient.clientId,
    clientSecret: demoClient.clientSecret,
    locations: locations
      .filter((l) => client.allLocations || client.locations.includes(l.id))
      .map((l) => ({ id: l.id, name: l.name, records: describeCounts(l) })),
    ...(adminInForce === undefined ? {} : { adminOn: true }),
    // The demo's own token is shown again; one the operator gave with --admin-token is theirs, never printed.
    ...(adminInForce !== undefined && adminInForce === adminToken ? { adminToken } : {}),
  };
};

/** The banner's demo part as text for a terminal: credentials, locations, the admin token and a curl to try. */
export const demoText = (demo: DemoCredentials, publicUrl: string): string => {
  const { clientId, clientSecret, adminToken } = demo;
  const location = demo.locations[0]?.id ?? 'LOCATION_ID';
  const login = JSON.stringify({ clientId, clientSecret, userAccessType: 'PLATFORM_MACHINE_CLIENT' });
  const admin =
    adminToken !== undefined
      ? `
Console (the data, the traffic, the clock and faults, in a browser; the token stays in the URL fragment):
  ${publicUrl}${CONSOLE_PATH}#token=${encodeURIComponent(adminToken)}
Admin API (clock, fixtures, request journal, integration report; see the README's "Sandbox" section):
  adminToken:   ${adminToken}
  npx larder clock advance 1d --url ${publicUrl} --admin-token=${adminToken}
  curl -s ${publicUrl}/_larder/requests -H 'Authorization: Bearer ${adminToken}'
`
      : demo.adminOn === true
        ? `
Console (sign in with the --admin-token you gave): ${publicUrl}${CONSOLE_PATH}
`
        : '';
  return `
Demo client (granted the demo locations; this demo database keeps its secret so it can show it again):
  clientId:     ${clientId}
  clientSecret: ${clientSecret}
Locations:
${demo.locations.map((l) => `  ${l.id}  ${l.name} (${l.records})`).join('\n')}
${admin}
Try it:
  TOKEN=$(curl -s -X POST ${publicUrl}${LOGIN_PATH} -H 'content-type: application/json' \\
    -d '${login}' | node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).token.accessToken')
  curl -s -X POST '${publicUrl}/v1/purchaseOrders/search?pageSize=2' -H "Authorization: Bearer $TOKEN" \\
    -H 'Platform-Restaurant-External-ID: ${location}' -H 'content-type: application/json' -d '{}'

`;
};

export interface LiveDemo {
  /**
   * Brings the demo locations up to the last complete day of the clock: each day since the last one gets its
   * activity (new orders, orders moving on, receipts, counts, waste, transfers), deterministic by seed and date.
   * Concurrent calls share one run. Resolves with what was written (nothing when already up to date).
   */
  catchUp(): Promise<{ days: number; records: number; ms: number } | undefined>;
  /**
   * Runs catchUp now (the days that passed while the server was stopped) and every `intervalMs` (real time passing
   * midnight); returns a stop function. The stop cuts a catch-up in flight short at its next day (rolled back: the
   * next start does those days again) and resolves once it has ended, which logs nothing then.
   */
  start(intervalMs: number): () => Promise<void>;
}

export const createLiveDemo = ({
  store,
  clock,
  logger,
}: {
  store: Store;
  clock: Clock;
  logger: Logger;
}): LiveDemo => {
  let running: Promise<{ days: number; records: number; ms: number } | undefined> | undefined;
  let stopped = false;
  const goOn = (): void => {
    if (stopped)
      throw new LarderError('ERR_UNAVAILABLE', {
        message: 'Stopping: the live demo catch-up was cut short; the next start catches up.',
        reported: true,
      });
  };
  const run = async () => {
    const state = await store.settings.liveDemo.get();
    const target = lastCompleteDay(clock.now());
    if (state === undefined || target <= state.endDate) return undefined;
    const started = performance.now();
    let records = 0;
    for (const location of state.locations) {
      goOn();
      // Deleted (or reset away) demo locations stay gone; imported locations are never in this list.
      if ((await store.locations.get(location.id)) === undefined) continue;
      const session = await store.records.beginImport({ id: location.id });
      try {
        const options = {
          seed: state.seed,
          locationIndex: location.locationIndex,
          days: state.days,
          endDate: state.endDate,
        };
        for (const batch of liveDelta(options, target)) {
          for (const kind of RECORD_KINDS) {
            const rows = batch[kind.name].map((record) => kind.toRow(record as never));
            if (rows.length > 0) await session.put(kind, rows);
            records += rows.length;
          }
          // A day at a time, so a long jump of the clock (years of activity) never holds the event loop:
          // requests are served meanwhile, reading the last committed state.
          await setImmediate();
          goOn();
        }
        await session.commit();
      } catch (error) {
        await session.rollback();
        throw error;
      }
    }
    const days = daysBetween(state.endDate, target);
    await store.settings.liveDemo.set({ ...state, days: state.days + days, endDate: target });
    const result = { days, records, ms: Math.round(performance.now() - started) };
    logger.info('live demo locations caught up', { ...result, endDate: target });
    return result;
  };
  const catchUp = () => {
    running ??= run().finally(() => {
      running = undefined;
    });
    return running;
  };
  return {
    catchUp,
    start: (intervalMs) => {
      let current: Promise<unknown> = Promise.resolve();
      const tick = () => {
        current = catchUp().catch((error: unknown) => {
          if (!stopped) logger.warn('live demo catch-up failed; retrying later', { error });
        });
      };
      tick();
      const timer = setInterval(tick, intervalMs).unref();
      return () => {
        stopped = true;
        clearInterval(timer);
        return current.then(() => {});
      };
    },
  };
};

/**
 * Brings a demo database back to its first-start state: the demo data as first generated (then caught up to the
 * clock by the live demo), only the demo client (its printed credentials keep working), real time. Answers 409 on
 * a database that was not started as a demo.
 */
export const resetDemo = async (store: Store): Promise<void> => {
  const [state, demoClient] = await Promise.all([
    store.settings.liveDemo.get(),
    store.settings.demoClient.get(),
  ]);
  if (state === undefined || demoClient === undefined)
    throw new LarderError('ERR_CONFLICT', {
      message: 'Only a demo database can be reset: this one was not first started as a demo.',
    });
  for (const location of await store.locations.list()) await store.locations.delete(location.id);
  for (const client of await store.auth.listClients())
    if (client.clientId !== demoClient.clientId) await store.auth.deleteClient(client.clientId);
  const locations = await seedDemo(store, state, false);
  await updateClientGrants(store, demoClient.clientId, {
    locations: locations.map((l) => l.id),
    scopes: SCOPES,
  });
  await store.auth.updateClient(demoClient.clientId, { revokedAt: null });
  await store.settings.liveDemo.set({
    ...state,
    days: state.firstDays,
    endDate: state.firstEndDate,
    locations,
  });
};
