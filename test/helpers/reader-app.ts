import type { Hono } from 'hono';
import { createClientCredentials } from '../../src/auth/clients.js';
import { type AppConfig, createApp } from '../../src/server/app.js';
import { createTestClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/logger.js';
import type { Store } from '../../src/storage/store.js';
import { LOGIN, loginRequest } from '../auth/harness.js';

/** The real app over `store`, and the bearer of a client that logged in and may read `location`. */
export const readerApp = async (
  store: Store,
  location: string,
  config: Partial<AppConfig> = {},
): Promise<{ app: Hono; bearer: string }> => {
  const clock = createTestClock(Date.UTC(2025, 0, 1));
  const client = await createClientCredentials(store, { name: 'reader', locations: [location] }, clock);
  const { app } = await createApp({
    store,
    clock,
    logger: silentLogger,
    config: { publicUrl: 'http://larder.test', tokenTtlSeconds: 3600, trustProxy: false, ...config },
  });
  const login = await app.request(LOGIN, loginRequest(client));
  const body = (await login.json()) as { token: { accessToken: string } };
  return { app, bearer: `Bearer ${body.token.accessToken}` };
};
