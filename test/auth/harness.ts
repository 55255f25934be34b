import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuthService } from '../../src/auth/auth-service.js';
import { type ClientCredentials, createClientCredentials, type NewClient } from '../../src/auth/clients.js';
import { createApp, type LarderApp } from '../../src/server/app.js';
import { createTestClock, type TestClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import type { Store } from '../../src/storage/store.js';

export const ISSUER = 'http://larder.test';
export const LOGIN = '/authentication/v1/authentication/login';
export const TOKEN = '/authentication/v1/authentication/customer/oauth/token';
export const TTL = 3600;

export interface TempStore {
  store: Store;
  dispose(): Promise<void>;
}

export const openTempStore = async (): Promise<TempStore> => {
  const dir = await mkdtemp(join(tmpdir(), 'larder-auth-'));
  const store = await createSqliteStore({ path: join(dir, 'larder.db') });
  return {
    store,
    dispose: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
};

/** A login request as a platform machine client sends it, for `app.request(LOGIN, loginRequest(...))`. */
export const loginRequest = (credentials: { clientId: string; clientSecret: string }): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({
    clientId: credentials.clientId,
    clientSecret: credentials.clientSecret,
    userAccessType: 'PLATFORM_MACHINE_CLIENT',
  }),
});

/** Bindings that @hono/node-server's getConnInfo reads, so in-process requests have a source address. */
export const fromAddress = (remoteAddress: string) => ({ incoming: { socket: { remoteAddress } } });

export interface AuthHarness {
  store: Store;
  clock: TestClock;
  auth: AuthService;
  app: LarderApp['app'];
  /** Another instance on the same store (for cross-instance behaviour). */
  instance(): Promise<LarderApp>;
  createClient(input?: Partial<NewClient>): Promise<ClientCredentials>;
  login(clientId: string, clientSecret: string, address?: string): Promise<Response>;
  token(body: Record<string, string>, headers?: Record<string, string>, address?: string): Promise<Response>;
  dispose(): Promise<void>;
}

/** The real app (the lead's edge error handler) over a temporary SQLite store, with a settable clock. */
export const createAuthHarness = async (issuer = ISSUER): Promise<AuthHarness> => {
  const temp = await openTempStore();
  const clock = createTestClock(Date.UTC(2025, 0, 1));
  const instance = () =>
    createApp({
      store: temp.store,
      clock,
      config: { publicUrl: issuer, tokenTtlSeconds: TTL, trustProxy: false },
      logger: silentLogger,
    });
  // The locations clients are granted below: a location nobody imported answers 404.
  for (const id of ['loc-1', 'loc-2']) await temp.store.locations.upsert({ id });
  const { app, auth } = await instance();
  return {
    store: temp.store,
    clock,
    auth,
    app,
    instance,
    createClient: (input = {}) =>
      createClientCredentials(
        temp.store,
        { name: 'test client', ...(input.allLocations === true ? {} : { locations: ['loc-1'] }), ...input },
        clock,
      ),
    login: async (clientId, clientSecret, address = '10.0.0.1') =>
      app.request(
        LOGIN,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ clientId, clientSecret, userAccessType: 'PLATFORM_MACHINE_CLIENT' }),
        },
        fromAddress(address),
      ),
    token: async (body, headers = {}, address = '10.0.0.1') =>
      app.request(
        TOKEN,
        {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
          body: new URLSearchParams(body).toString(),
        },
        fromAddress(address),
      ),
    dispose: temp.dispose,
  };
};

export const basic = (clientId: string, clientSecret: string): string =>
  `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;

export interface ErrorBody {
  status: string;
  code: number;
  message: string;
  fieldName?: string;
  canRetry?: string;
  requestId?: string;
}

export interface TokenBody {
  access_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
}

export interface OAuthErrorBody {
  error: string;
  error_description: string;
}

export const readJson = async <T>(res: Response | Promise<Response>): Promise<T> =>
  (await (await res).json()) as T;
