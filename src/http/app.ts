import { randomUUID } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { createPageTokens } from '../retail/page-token.js';
import { createRetailRoutes, type RetailGuard } from '../retail/retail-routes.js';
import {
  type ErrorCode,
  isLarderError,
  isStoreError,
  LarderError,
  type StoreErrorCode,
} from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { Store } from '../storage/store.js';
import { toErrorMessage } from './error-message.js';
import { openApiDocument } from './openapi.js';
import { requestHeader, setResponseHeader } from './request-header.js';

export interface AppDeps {
  store: Store;
  logger: Logger;
  /** The retail guard plus the authentication routes (login, OAuth token, metadata, JWKS). */
  auth: RetailGuard & { routes?: Hono };
  /** Issuer / public base URL, used in the OpenAPI document's server list. */
  publicUrl: string;
}

type Env = { Variables: { requestId: string } };

const STORE_TO_LARDER: Partial<Record<StoreErrorCode, ErrorCode>> = {
  STORE_UNAVAILABLE: 'ERR_UNAVAILABLE',
  STORE_LOCKED: 'ERR_UNAVAILABLE',
  STORE_DUPLICATE: 'ERR_CONFLICT',
  STORE_INVALID_VALUE: 'ERR_VALIDATION',
  STORE_NOT_FOUND: 'ERR_NOT_FOUND',
};

const SANE_REQUEST_ID = /^[\w.:@/+=-]{1,128}$/;

/** Maps anything thrown to a LarderError; unknown failures become a 500 that never leaks a stack. */
const asLarderError = (error: unknown): LarderError => {
  if (isLarderError(error)) return error;
  // Until the error edge lands: storage failures as the HTTP errors they mean.
  if (isStoreError(error)) {
    const code = STORE_TO_LARDER[error.code];
    if (code !== undefined) return new LarderError(code, { developerMessage: error.message, cause: error });
  }
  if (error instanceof HTTPException) {
    if (error.status === 413) return new LarderError('ERR_BODY_TOO_LARGE');
    if (error.status === 400) return new LarderError('ERR_VALIDATION', { message: error.message });
  }
  return new LarderError('ERR_INTERNAL', { cause: error });
};

export const createApp = async ({ store, logger, auth, publicUrl }: AppDeps): Promise<Hono<Env>> => {
  const secret = await store.settings.pageTokenSecret.ensure(randomUUID() + randomUUID());
  const app = new Hono<Env>();

  app.use(async (c, next) => {
    const incoming = requestHeader(c, 'x-request-id');
    const requestId = incoming !== undefined && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    c.set('requestId', requestId);
    setResponseHeader(c, 'X-Request-Id', requestId);
    await next();
  });

  const errorResponse = (thrown: unknown, c: Context<Env>) => {
    const error = asLarderError(thrown);
    const requestId = c.get('requestId') ?? randomUUID();
    if (error.status >= 500) {
      logger.error('request failed', {
        requestId,
        method: c.req.method,
        path: c.req.path,
        error: error.cause ?? error,
      });
    }
    for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
    c.header('X-Request-Id', requestId);
    c.header('Cache-Control', 'no-store');
    return c.json(toErrorMessage(error, requestId), error.status as ContentfulStatusCode);
  };
  app.onError(errorResponse);
  app.notFound((c) => errorResponse(new LarderError('ERR_ROUTE_NOT_FOUND'), c));

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    await store.ping();
    return c.json({ status: 'ready', storage: store.describe() });
  });
  const document = JSON.stringify(openApiDocument(publicUrl));
  app.get('/openapi.json', (c) =>
    c.body(document, 200, { 'content-type': 'application/json; charset=utf-8' }),
  );

  if (auth.routes !== undefined) app.route('/', auth.routes);
  app.route('/', createRetailRoutes({ store, guard: auth, pageTokens: createPageTokens(secret) }));
  return app;
};
