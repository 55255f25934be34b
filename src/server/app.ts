import { randomUUID } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { type AuthService, createAuthService, LOGIN_PATH } from '../auth/auth-service.js';
import { TOKEN_ENDPOINT_PATH } from '../auth/oauth-token-route.js';
import type { RetailGuard } from '../auth/retail-guard.js';
import { sourceAddress } from '../auth/source-address.js';
import { createErrorEdge } from '../http/error-edge.js';
import { loginThrottle } from '../middleware/login-throttle/login-throttle.js';
import { requestId } from '../middleware/request-id/request-id.js';
import { retailAuth } from '../middleware/retail-auth/retail-auth.js';
import { createPageTokens } from '../retail/page-token.js';
import { createRetailRoutes } from '../retail/retail-routes.js';
import type { Clock } from '../shared/clock.js';
import { LarderError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { Store } from '../storage/store.js';
import { openApiDocument } from './openapi.js';

export interface AppConfig {
  /** Issuer and public base URL (no trailing slash). */
  publicUrl: string;
  tokenTtlSeconds: number;
  /** Take the throttled source address from X-Forwarded-For (only behind a proxy you run). */
  trustProxy: boolean;
}

export interface AppDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  config: AppConfig;
  /** A stand-in retail guard (retail tests exercise routes without tokens); default: the real one. */
  guard?: RetailGuard;
}

export interface LarderApp {
  app: Hono;
  auth: AuthService;
}

export const PAGE_TOKEN_SECRET_SETTING = 'page_token_secret';

/**
 * The composition root: builds the auth service, the page-token secret and the middlewares, and wires the
 * request pipeline. Every cross-cutting concern is one middleware (src/middleware/<name>/); handlers only do
 * their operation's work; every error answer goes through the one error edge.
 */
export const createApp = async ({ store, clock, logger, config, guard }: AppDeps): Promise<LarderApp> => {
  const auth = await createAuthService({
    store,
    clock,
    logger,
    config: { publicUrl: config.publicUrl, tokenTtlSeconds: config.tokenTtlSeconds },
  });
  const secret = await store.ensureSetting(PAGE_TOKEN_SECRET_SETTING, randomUUID() + randomUUID());
  const app = new Hono();

  app.use(requestId());
  const errorEdge = createErrorEdge(logger);
  app.onError(errorEdge);
  app.notFound((c) => errorEdge(new LarderError('ERR_ROUTE_NOT_FOUND'), c));

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    await store.authVersion();
    return c.json({ status: 'ready', storage: store.kind });
  });
  const document = JSON.stringify(openApiDocument(config.publicUrl));
  app.get('/openapi.json', (c) =>
    c.body(document, 200, { 'content-type': 'application/json; charset=utf-8' }),
  );

  const throttled = loginThrottle({
    ...auth.credentials,
    sourceAddress: (c: Context) => sourceAddress(c, config.trustProxy),
  });
  app.post(LOGIN_PATH, throttled, auth.login);
  app.post(TOKEN_ENDPOINT_PATH, throttled, auth.token);
  app.route('/', auth.discovery);
  app.route(
    '/',
    createRetailRoutes({
      store,
      authorize: retailAuth(guard ?? auth.guard),
      pageTokens: createPageTokens(secret),
    }),
  );
  return { app, auth };
};
