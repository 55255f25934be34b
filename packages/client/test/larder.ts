import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ServerConfig, startServer } from '../../../src/server/server.js';
import { systemClock } from '../../../src/shared/clock.js';
import { silentLogger } from '../../../src/shared/logger.js';
import { openStore } from '../../../src/storage/open-store.js';
import type { Store } from '../../../src/storage/store.js';

/**
 * A real Larder started in process on port 0 with the sandbox admin API on: the client's tests run against it,
 * never against mocks. The admin API sets up fixtures and clients, moves the virtual clock and reads the journal.
 */

export const ADMIN_TOKEN = 'client-tests-admin-token';

export interface JournalEntry {
  operation?: string;
  status: number;
  code?: number | string;
  clientId?: string;
  location?: string;
  timeMs: number;
  tokenFingerprint?: string;
  fault?: string;
}

export interface Credentials {
  clientId: string;
  clientSecret: string;
}

export const startLarder = async (
  options: {
    tokenTtlSeconds?: number;
    wrapStore?: (store: Store) => Store;
    /** Runs on the new store before the server starts (seed a live demo, say). */
    prepare?: (store: Store) => Promise<void>;
    live?: boolean;
    /** More server settings: rate limits, fault rules, the fault header. */
    server?: Pick<ServerConfig, 'rateLimit' | 'faults' | 'allowFaultHeader'>;
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
  const admin = async <T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    type = 'application/json',
  ): Promise<T> => {
    const response = await fetch(`${server.url}/_larder${path}`, {
      method,
      headers: {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        ...(body === undefined ? {} : { 'content-type': type }),
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return (text === '' ? {} : JSON.parse(text)) as T;
  };
  return {
    url: server.url,
    store,
    admin,
    /** A new API client granted these locations (or all). */
    createReader: (locations: string[] | 'all'): Promise<Credentials> =>
      admin('POST', '/clients', {
        name: 'client tests',
        ...(locations === 'all' ? { allLocations: true } : { locations }),
        scopes: 'retail.inventory:read retail:read',
      }),
    /** Loads records into a location (created if new), as NDJSON. */
    load: (location: string, kind: 'purchaseOrders' | 'inventoryHistory', records: readonly unknown[]) =>
      admin(
        'POST',
        `/locations/${location}/${kind}`,
        records.map((record) => JSON.stringify(record)).join('\n'),
        'application/x-ndjson',
      ),
    journal: async (query = ''): Promise<JournalEntry[]> =>
      (await admin<{ requests: JournalEntry[] }>('GET', `/requests${query}`)).requests,
    report: async (clientId: string): Promise<unknown[]> =>
      (await admin<{ findings: unknown[] }>('GET', `/report?clientId=${clientId}`)).findings,
    /** Moves the virtual clock (and lets the live demo catch up). */
    advance: (seconds: number) => admin('POST', '/clock/advance', { seconds }),
    clockNow: async () => Date.parse((await admin<{ now: string }>('GET', '/clock')).now),
    /**
     * A client clock and sleep that run on the server's frozen virtual clock: waiting moves it forward, so retries
     * and rate-limit windows take no real time and the report judges the pacing as the server saw it.
     */
    virtualTime: async () => {
      const start = Date.parse(
        (await admin<{ now: string }>('PUT', '/clock', { now: new Date().toISOString(), frozen: true })).now,
      );
      let elapsed = 0;
      return {
        now: () => start + elapsed,
        sleep: async (ms: number) => {
          const seconds = Math.max(1, Math.ceil(ms / 1000));
          elapsed += seconds * 1000;
          await admin('POST', '/clock/advance', { seconds });
        },
        waited: () => elapsed,
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
