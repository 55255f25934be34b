import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ServerConfig, startServer } from '../../../src/server/server.js';
import { systemClock } from '../../../src/shared/clock.js';
import { silentLogger } from '../../../src/shared/logger.js';
import { openStore } from '../../../src/storage/open-store.js';
import type { Store } from '../../../src/storage/store.js';
import { LOGIN_PATH } from '../src/generated/types.js';
import { createSandbox, type InventoryHistoryLogEntry, type PurchaseOrder } from '../src/index.js';

/**
 * A real Larder started in process on port 0 with the sandbox admin API on: the client's tests run against it,
 * never against mocks. The admin API sets up fixtures and clients, moves the virtual clock and reads the journal.
 */

export const ADMIN_TOKEN = 'client-tests-admin-token';

export interface Credentials {
  clientId: string;
  clientSecret: string;
}

/** A login sent by hand, not through the client: a test that counts or spends logins itself. */
export const logInDirectly = (url: string, { clientId, clientSecret }: Credentials): Promise<Response> =>
  fetch(`${url}${LOGIN_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ clientId, clientSecret, userAccessType: 'PLATFORM_MACHINE_CLIENT' }),
  });

export const startLarder = async (
  options: {
    tokenTtlSeconds?: number;
    wrapStore?: (store: Store) => Store;
    /** Runs on the new store before the server starts (seed a live demo, say). */
    prepare?: (store: Store) => Promise<void>;
    live?: boolean;
    /** More server settings: rate limits, fault rules, the fault header, TLS. */
    server?: Pick<ServerConfig, 'rateLimit' | 'faults' | 'allowFaultHeader' | 'tls'>;
  } = {},
) => {
  const dir = await mkdtemp(join(tmpdir(), 'larder-client-'));
  const opened = await openStore({ db: join(dir, 'larder.db') });
  await options.prepare?.(opened);
  const store = options.wrapStore?.(opened) ?? opened;
  const server = await startServer({
    store,
    clock: systemClock,
    logger: silentLogger,
    config: {
      host: '127.0.0.1',
      port: 0,
      tokenTtlSeconds: options.tokenTtlSeconds ?? 86_400,
      trustProxy: false,
      adminToken: ADMIN_TOKEN,
      live: options.live ?? false,
      ...options.server,
    },
  });
  const sandbox = createSandbox({ baseUrl: server.url, adminToken: ADMIN_TOKEN });
  return {
    url: server.url,
    store,
    /** The package's own typed sandbox controls, on this Larder. */
    sandbox,
    /** A new API client granted these locations (or all). */
    createReader: (locations: string[] | 'all'): Promise<Credentials> =>
      sandbox.clients.create({
        name: 'client tests',
        ...(locations === 'all' ? { allLocations: true } : { locations }),
        scopes: 'retail.inventory:read retail:read',
      }),
    /** Loads records into a location (created if new). */
    load: (location: string, kind: 'purchaseOrders' | 'inventoryHistory', records: readonly unknown[]) =>
      kind === 'purchaseOrders'
        ? sandbox.locations.loadPurchaseOrders(location, records as PurchaseOrder[])
        : sandbox.locations.loadInventoryHistory(location, records as InventoryHistoryLogEntry[]),
    journal: () => sandbox.requests.list(),
    report: async (clientId: string) => (await sandbox.report(clientId)).findings,
    /** Moves the virtual clock (and lets the live demo catch up). */
    advance: (seconds: number) => sandbox.clock.advance(seconds),
    clockNow: async () => Date.parse((await sandbox.clock.get()).now),
    /**
     * A client clock and sleep that run on the server's frozen virtual clock: waiting moves it forward, so retries
     * and rate-limit windows take no real time and the report judges the pacing as the server saw it.
     */
    virtualTime: async () => {
      // Never back, and a minute past the last test's time: a clock moved back would leave that test's requests
      // in the rate-limit windows (dated in the new past's future), and the next test's first call a 429.
      const last = Date.parse((await sandbox.clock.get()).now);
      const start = Date.parse(
        (await sandbox.clock.set(new Date(Math.max(Date.now(), last) + 60_000), { frozen: true })).now,
      );
      let elapsed = 0;
      return {
        now: () => start + elapsed,
        sleep: async (ms: number) => {
          const seconds = Math.max(1, Math.ceil(ms / 1000));
          // Time passes for the client once it has for the server: a concurrent call that read the clock during
          // the advance would otherwise think a Retry-After over that the server has not yet seen pass.
          await sandbox.clock.advance(seconds);
          elapsed += seconds * 1000;
        },
        waited: () => elapsed,
      };
    },
    /**
     * As virtualTime, for calls that sleep at once: one time for all, which a sleep moves to its own wake time
     * (never back), so calls told to wait the same second all wake together, as they would on a real clock. Its
     * `fetch` counts the requests in flight, and a sleep moves the clock only once each has been answered: on a
     * real clock a request sent is served within milliseconds, not a second later because another call slept.
     */
    sharedVirtualTime: async () => {
      const last = Date.parse((await sandbox.clock.get()).now);
      let time = Date.parse(
        (await sandbox.clock.set(new Date(Math.max(Date.now(), last) + 60_000), { frozen: true })).now,
      );
      let moves = Promise.resolve();
      let inFlight = 0;
      const idle: (() => void)[] = [];
      const answered = () =>
        inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => idle.push(resolve));
      return {
        now: () => time,
        fetch: (async (input, init) => {
          inFlight++;
          try {
            return await fetch(input, init);
          } finally {
            if (--inFlight === 0) for (const resolve of idle.splice(0)) resolve();
          }
        }) as typeof fetch,
        sleep: (ms: number) => {
          const wake = time + ms;
          moves = moves.then(async () => {
            await answered();
            if (wake <= time) return;
            await sandbox.clock.set(new Date(wake), { frozen: true });
            time = wake;
          });
          return moves;
        },
      };
    },
    stop: async () => {
      await server.stop();
      await opened.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
};

export type Larder = Awaited<ReturnType<typeof startLarder>>;
