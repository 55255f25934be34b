import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareDemo } from '../../src/sandbox/demo.js';
import type { Schedule } from '../../src/server/cluster-supervisor.js';
import { type RunningServer, type ServerConfig, startServer } from '../../src/server/server.js';
import { type Clock, systemClock } from '../../src/shared/clock.js';
import { type Logger, silentLogger } from '../../src/shared/logger.js';
import { createSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import type { Store } from '../../src/storage/store.js';

export interface TestServer {
  server: RunningServer;
  store: Store;
  /** On a demo database: the demo client and the admin token its first start made. */
  demo?: { clientId: string; clientSecret: string; adminToken: string };
  /** Stops the server, closes the store, removes the database. */
  stop(): Promise<void>;
}

/**
 * A real server in this process on a fresh SQLite file, listening on port 0. With `demo`, the database gets its
 * first-start demo (locations, data, demo client, admin token) and serves the admin API, as `larder serve` does.
 */
export const startTestServer = async (
  options: {
    demo?: boolean;
    clock?: Clock;
    config?: Partial<ServerConfig>;
    logger?: Logger;
    /** Timers of the server's own (the refusal log's interval). */
    schedule?: Schedule;
  } = {},
): Promise<TestServer> => {
  const dir = await mkdtemp(join(tmpdir(), 'larder-server-'));
  const store = await createSqliteStore({ path: join(dir, 'larder.db') });
  const clock = options.clock ?? systemClock;
  const cleanUp = async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    let demo: TestServer['demo'];
    if (options.demo === true) {
      await prepareDemo(store, clock, () => {});
      const [client, adminToken] = await Promise.all([
        store.settings.demoClient.get(),
        store.settings.demoAdminToken.get(),
      ]);
      if (client === undefined || adminToken === undefined) throw new Error('the demo was not prepared');
      demo = { ...client, adminToken };
    }
    const server = await startServer({
      store,
      clock,
      logger: options.logger ?? silentLogger,
      ...(options.schedule === undefined ? {} : { schedule: options.schedule }),
      config: {
        host: '127.0.0.1',
        port: 0,
        tokenTtlSeconds: 3600,
        trustProxy: false,
        ...(demo === undefined ? {} : { adminToken: demo.adminToken }),
        ...options.config,
      },
    });
    return {
      server,
      store,
      ...(demo === undefined ? {} : { demo }),
      stop: async () => {
        await server.stop();
        await cleanUp();
      },
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
};

/** Logs a client in over HTTP, as an integration does; the access token. */
export const logInOver = async (url: string, clientId: string, clientSecret: string): Promise<string> => {
  const login = await fetch(`${url}/authentication/v1/authentication/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ clientId, clientSecret, userAccessType: 'PLATFORM_MACHINE_CLIENT' }),
  });
  const { token } = (await login.json()) as { token: { accessToken: string } };
  return token.accessToken;
};

/** A purchase-order search over HTTP, as an integration sends it; `query` is the URL's (`?pageSize=5`). */
export const searchOrdersOver = (url: string, accessToken: string, location: string, query = '') =>
  fetch(`${url}/v1/purchaseOrders/search${query}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'platform-restaurant-external-id': location,
      'content-type': 'application/json',
    },
    body: '{}',
  });
