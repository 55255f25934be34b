import { randomUUID } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { type AuthService, createAuthService, LOGIN_PATH } from '../auth/auth-service.js';
import type { ThrottleLimit } from '../auth/failure-throttle.js';
import { oauthErrorFrom, TOKEN_ENDPOINT_PATH } from '../auth/oauth-token-route.js';
import type { RetailGuard } from '../auth/retail-guard.js';
import { createSourceAddress, type TrustProxy } from '../auth/source-address.js';
import { createErrorEdge, STORE_DAMAGED_MESSAGE } from '../http/error-edge.js';
import { inlineMiddleware } from '../http/inline-middleware.js';
import { createMethodCheck, createRouteHint } from '../http/route-hint.js';
import { accessLog } from '../middleware/access-log/access-log.js';
import { adminAuth } from '../middleware/admin-auth/admin-auth.js';
import { responseContract } from '../middleware/contract/contract.js';
import { corsFor } from '../middleware/cors/cors.js';
import { injectFaults } from '../middleware/faults/faults.js';
import { headLength } from '../middleware/head-length/head-length.js';
import { journalRequests } from '../middleware/journal/journal.js';
import { loginThrottle } from '../middleware/login-throttle/login-throttle.js';
import { measureRequests } from '../middleware/metrics/metrics.js';
import { rateLimit } from '../middleware/rate-limit/rate-limit.js';
import {
  clusterRateLimiter,
  createRateLimiter,
  type RateLimitHeaderStyle,
  type RatePolicy,
} from '../middleware/rate-limit/rate-windows.js';
import { requestDeadline } from '../middleware/request-deadline/request-deadline.js';
import { requestId } from '../middleware/request-id/request-id.js';
import { noteToken, retailAuth } from '../middleware/retail-auth/retail-auth.js';
import { RECORD_KINDS } from '../records/kinds.js';
import { createLocationDirectory } from '../retail/location-directory.js';
import { createPageTokens } from '../retail/page-token.js';
import { createRecordReader } from '../retail/record-reader.js';
import { createRetailRoutes, retailMethodError } from '../retail/retail-routes.js';
import { createAdminRoutes } from '../sandbox/admin-routes.js';
import { createConsoleRoutes, loadConsoleAssets } from '../sandbox/console-assets.js';
import { createLiveDemo } from '../sandbox/demo.js';
import { clusterFaultControl, localFaultControl } from '../sandbox/fault-control.js';
import type { FaultRule } from '../sandbox/fault-schemas.js';
import { createFaultEngine } from '../sandbox/faults.js';
import { createJournal, type Journal } from '../sandbox/journal.js';
import { OPERATIONS, TOKEN_OPERATIONS } from '../sandbox/journal-entry.js';
import { clusterJournalView, journalOffView, localJournalView } from '../sandbox/journal-view.js';
import { ADDRESS_SCOPE, rateLimitControl } from '../sandbox/rate-limit-control.js';
import type { Clock } from '../shared/clock.js';
import { isStoreError, LarderError } from '../shared/errors.js';
import { ADMIN_PREFIX } from '../shared/limits.js';
import type { Logger } from '../shared/logger.js';
import type { Metrics } from '../shared/metrics.js';
import { CONSOLE_PATH, HEALTH_PATH, isLarderOwnPath, OPENAPI_PATH, READY_PATH } from '../shared/own-paths.js';
import { DEFAULT_REQUEST_TIMEOUT_SECONDS } from '../shared/server-limits.js';
import { createVirtualClock } from '../shared/virtual-clock.js';
import { instrumentStore } from '../storage/instrumented-store.js';
import type { Store } from '../storage/store.js';
import { createDocsRoutes } from './docs-routes.js';
import { openApiDocument } from './openapi.js';
import { demoExamples } from './openapi-examples.js';
import { withoutSandbox } from './served-document.js';

export interface AppConfig {
  /** Issuer and public base URL (no trailing slash). */
  publicUrl: string;
  tokenTtlSeconds: number;
  /** Which proxies may name the client's address in X-Forwarded-For (false: none; the socket peer counts). */
  trustProxy: TrustProxy;
  /** Failed logins allowed per client id and address in a window; default 10 a minute. */
  loginThrottle?: ThrottleLimit | 'off';
  /** Turns the admin API (/_larder/), the virtual clock and the request journal on. */
  adminToken?: string;
  /** Entries the request journal keeps (default 10,000); 0 turns the journal off. */
  journalSize?: number;
  /** Demo locations keep trading as the clock passes midnight UTC (default true; a no-op without demo data). */
  live?: boolean;
  /**
   * A demo start (default true; a no-op without a demo client): /docs prefills the demo client. A `--no-demo`
   * start of a demo database is production-style, and its docs page hands nobody the demo secret.
   */
  demo?: boolean;
  /** A worker of `--workers N`: the admin API's journal covers every worker, through the primary. */
  clusterWorker?: boolean;
  /** `--cors`: origins whose browser scripts may call the retail and auth routes (`*`: any). */
  cors?: readonly string[];
  /** The platform's rate limits (`--rate-limit`); off when absent. */
  rateLimit?: readonly RatePolicy[] | 'off';
  /** `--rate-limit-headers`: which fields carry the limit state (default: the platform's). */
  rateLimitHeaders?: RateLimitHeaderStyle;
  /** Fault rules from `--faults FILE`: injected even without the admin API (the operator asked for them). */
  faults?: readonly FaultRule[];
  /** `--allow-fault-header`: honour the Larder-Fault request header. */
  allowFaultHeader?: boolean;
  /** Public API requests unanswered after this get 503 (default DEFAULT_REQUEST_TIMEOUT_SECONDS). */
  requestTimeoutMs?: number;
}

export interface AppDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  config: AppConfig;
  /** A stand-in retail guard (retail tests exercise routes without tokens); default: the real one. */
  guard?: RetailGuard;
  /** Measure requests, tokens, refusals, store calls and imports into these (only when metrics are served). */
  metrics?: Metrics;
}

export interface LarderApp {
  app: Hono;
  auth: AuthService;
  /** The clock everything runs on: the virtual clock when the admin API is on, else the one given. */
  clock: Clock;
  /** The request journal, when the admin API is on and the journal not turned off (`--journal-size 0`). */
  journal: Journal | undefined;
  /**
   * Starts background work (auth and clock polls, the live demo's catch-up); returns its stop: nothing starts
   * after it is called, and it resolves once the runs in flight have ended, logging nothing more.
   */
  start(): () => Promise<void>;
  /** From now on /readyz answers 503, so balancers stop sending before the server stops. */
  drain(): void;
  /** Resolves once no request is being handled and what it logs is written (see RequestDeadline.idle). */
  idle(): Promise<void>;
}

/** Every instance keeps its virtual time in step with the store within a second, as with revocations. */
const CLOCK_SYNC_MS = 500;

const NO_CONSOLE =
  'No console here: the console drives the admin API, which this server runs without. Start larder serve with ' +
  '--admin-token (or LARDER_ADMIN_TOKEN), or on a new database without --no-demo, and open the /console#token=… ' +
  'link it prints.';

/** How often real time is checked for a passed midnight (a clock moved through the admin API catches up at once). */
const LIVE_CHECK_MS = 60_000;

/** The operation id of a request, for the journal: plain string tests, no route matching per request. */
const POST_OPERATIONS: ReadonlyMap<string, string> = new Map([
  [LOGIN_PATH, OPERATIONS.login],
  [TOKEN_ENDPOINT_PATH, OPERATIONS.oauthToken],
  ...RECORD_KINDS.map((kind): [string, string] => [`/v1/${kind.name}/search`, kind.operations.search]),
]);
const GET_PREFIXES = RECORD_KINDS.map(
  (kind) => [`/v1/${kind.name}/`, `/v1/${kind.name}/search`, kind.operations.get] as const,
);
const operationOf = (method: string, path: string): string | undefined => {
  if (method === 'POST') return POST_OPERATIONS.get(path);
  // HEAD is its GET without the body: the journal, fault rules and metrics name the GET's operation.
  if (method !== 'GET' && method !== 'HEAD') return undefined;
  for (const [prefix, search, operation] of GET_PREFIXES)
    if (path.startsWith(prefix) && path.indexOf('/', prefix.length) === -1 && path !== search)
      return operation;
  return undefined;
};

/**
 * The composition root: builds the auth service, the page-token secret and the middlewares, and wires the
 * request pipeline. Every cross-cutting concern is one middleware (src/middleware/<name>/); handlers only do
 * their operation's work; every error answer goes through the one error edge.
 */
export const createApp = async ({
  store: givenStore,
  clock: given,
  logger,
  config,
  guard,
  metrics,
}: AppDeps): Promise<LarderApp> => {
  const store = metrics === undefined ? givenStore : instrumentStore(givenStore, metrics);
  const sandbox = config.adminToken !== undefined;
  const virtualClock = sandbox
    ? await createVirtualClock({
        real: given,
        persistence: {
          load: () => store.settings.clock.get(),
          save: (setting) => store.settings.clock.set(setting),
          update: (change) => store.settings.clock.update(change),
        },
      })
    : undefined;
  const clock = virtualClock ?? given;
  const journal = sandbox && config.journalSize !== 0 ? createJournal(config.journalSize) : undefined;
  const live = config.live === false ? undefined : createLiveDemo({ store, clock, logger });
  const auth = await createAuthService({
    store,
    clock,
    logger,
    config: {
      publicUrl: config.publicUrl,
      tokenTtlSeconds: config.tokenTtlSeconds,
      ...(config.loginThrottle === undefined ? {} : { loginThrottle: config.loginThrottle }),
      ...(config.clusterWorker === true ? { throttleChannel: process } : {}),
    },
  });
  const secret = await store.settings.pageTokenSecret.ensure(randomUUID() + randomUUID());
  const app = new Hono();
  const locations = createLocationDirectory(store, clock);

  // Only the endpoints this instance has: without the admin API, its paths and the console's are never named.
  const apiDocument = sandbox
    ? openApiDocument(config.publicUrl)
    : withoutSandbox(openApiDocument(config.publicUrl));
  // The test suite's contract check (scripts/run-tests.mjs sets it): every answer is held to the document.
  if (process.env['LARDER_CONTRACT'] === 'enforce') app.use(responseContract(apiDocument));
  app.use(headLength());
  app.use(requestId());
  // Off (--log-level warn or above) it is not installed at all, so it costs nothing.
  if (logger.enabled?.('info') ?? true) app.use(accessLog({ logger }));
  if (metrics !== undefined)
    app.use(measureRequests({ metrics, operationOf, tokenOperations: new Set(TOKEN_OPERATIONS) }));
  // Before the journal, so preflights are not journaled; never on the admin API.
  if (config.cors !== undefined && config.cors.length > 0) {
    const allowed = corsFor(config.cors);
    for (const path of ['/v1/*', LOGIN_PATH, TOKEN_ENDPOINT_PATH, '/.well-known/*']) app.use(path, allowed);
  }
  // Before the journal and faults: the console's own page loads are not the integration's traffic.
  if (sandbox) {
    app.route(CONSOLE_PATH, createConsoleRoutes(await loadConsoleAssets()));
  }
  // Fault rules exist with the admin API or a faults file; under --workers the primary holds them.
  const faults =
    sandbox || (config.faults?.length ?? 0) > 0
      ? config.clusterWorker === true
        ? clusterFaultControl(process)
        : localFaultControl(createFaultEngine(config.faults))
      : undefined;
  const injector =
    faults !== undefined || config.allowFaultHeader === true
      ? injectFaults({
          control: faults,
          allowHeader: config.allowFaultHeader === true,
          operationOf,
          skip: isLarderOwnPath,
          tokenPath: TOKEN_ENDPOINT_PATH,
        })
      : undefined;
  const errorEdge = createErrorEdge(logger, new Map([[TOKEN_ENDPOINT_PATH, oauthErrorFrom]]));
  // The admin API is left out: a large fixture load may rightly take longer.
  const deadline = requestDeadline(config.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_SECONDS * 1000, (c) =>
    c.req.path.startsWith(ADMIN_PREFIX),
  );
  // With the journal, fault injection and the deadline run inside its layer: one pipeline layer, not three.
  if (journal !== undefined)
    app.use(
      journalRequests({
        journal,
        clock,
        operationOf,
        // An unknown path (a typo) is the integration's traffic; Larder's own pages and probes are not.
        skip: isLarderOwnPath,
        onError: errorEdge,
        inner: injector === undefined ? deadline : inlineMiddleware(injector, deadline),
      }),
    );
  else {
    if (injector !== undefined) app.use(injector);
    app.use(deadline);
  }
  app.onError(errorEdge);
  const routeHint = createRouteHint(apiDocument.paths);
  const methodCheck = createMethodCheck(apiDocument.paths);
  app.notFound((c) => {
    noteToken(c);
    const wrongMethod = retailMethodError(c.req.method, c.req.path);
    if (wrongMethod !== undefined) return errorEdge(wrongMethod, c);
    const allowed = methodCheck(c.req.method, c.req.path);
    if (allowed !== undefined)
      return errorEdge(
        new LarderError('ERR_METHOD_NOT_ALLOWED', {
          headers: { allow: allowed.join(', ') },
          message: `${c.req.path} takes ${allowed.join(', ')}, not ${c.req.method}.`,
        }),
        c,
      );
    // Someone who opens the console the README describes on a server without it is told why, and how to have
    // it; the admin API's own paths stay a plain 404 (the CLI says the same when it meets one).
    if (!sandbox && (c.req.path === CONSOLE_PATH || c.req.path.startsWith(`${CONSOLE_PATH}/`)))
      return errorEdge(new LarderError('ERR_ROUTE_NOT_FOUND', { message: NO_CONSOLE }), c);
    const meant = routeHint(c.req.path);
    const message = meant === undefined ? undefined : `No such endpoint. Did you mean ${meant}?`;
    return errorEdge(new LarderError('ERR_ROUTE_NOT_FOUND', message === undefined ? {} : { message }), c);
  });

  let draining = false;
  app.get(HEALTH_PATH, (c) => c.json({ status: 'ok' }));
  // Reached only once the app is built, so the signing keys are loaded; before that the server answers 503.
  // Probes come every few seconds: the store going away and coming back are logged once each, not per probe.
  let storeAnswers = true;
  app.get(READY_PATH, async (c) => {
    if (draining)
      throw new LarderError('ERR_UNAVAILABLE', {
        message: 'Stopping: not taking new requests.',
        reported: true,
      });
    // Whatever the failure (a driver error, a file gone), not ready is a 503 the balancer understands. A damaged
    // file is said as such, at error: waiting will not bring it back. Where it is stays in the log, not the body.
    await store.ping().catch((cause: unknown) => {
      const damaged = isStoreError(cause) && cause.code === 'STORE_DAMAGED';
      if (storeAnswers && damaged)
        logger.error(
          'not ready: the database file is damaged or was replaced; writes are refused, and reads of what is damaged fail, until the server is restarted on a sound file',
          { error: cause },
        );
      else if (storeAnswers) logger.warn('not ready: the store does not answer', { error: cause });
      storeAnswers = false;
      throw new LarderError('ERR_UNAVAILABLE', {
        cause,
        reported: true,
        ...(damaged ? { message: STORE_DAMAGED_MESSAGE } : {}),
      });
    });
    if (!storeAnswers) logger.info('ready again: the store answers');
    storeAnswers = true;
    return c.json({ status: 'ready', storage: store.describe() });
  });
  const document = JSON.stringify(apiDocument);
  app.get(OPENAPI_PATH, (c) => c.body(document, 200, { 'content-type': 'application/json; charset=utf-8' }));
  app.route(
    '/',
    createDocsRoutes({
      publicUrl: config.publicUrl,
      demoClient: async () => {
        if (config.demo === false) return undefined;
        const demo = await store.settings.demoClient.get();
        const client = demo === undefined ? undefined : await store.auth.getClient(demo.clientId);
        return client === undefined || client.revokedAt !== null ? undefined : demo;
      },
      exampleIds: async () => {
        const ids: Record<string, string> = {};
        if (config.demo === false || (await store.settings.databaseKind.get()) !== 'demo') return ids;
        const locationId = demoExamples().location;
        for (const kind of RECORD_KINDS) {
          const [row] = await store.records.search(kind, { locationId, where: [], limit: 1 });
          if (row !== undefined) ids[kind.idParam] = row.id;
        }
        return ids;
      },
    }),
  );

  const addressOf = createSourceAddress(config.trustProxy);
  const throttled = loginThrottle({ ...auth.credentials, sourceAddress: addressOf });
  const policies = config.rateLimit === 'off' ? undefined : config.rateLimit;
  // Under --workers the primary counts for every worker: per-worker counts would loosen the limit N times.
  const limiter =
    policies === undefined
      ? undefined
      : config.clusterWorker === true
        ? clusterRateLimiter(process)
        : createRateLimiter(policies);
  const limited = (scopeOf: (c: Context) => string, keyOf: (c: Context) => string) =>
    limiter === undefined || policies === undefined
      ? undefined
      : rateLimit({
          limiter,
          policies,
          clock,
          scopeOf,
          keyOf,
          tokenPath: TOKEN_ENDPOINT_PATH,
          ...(config.rateLimitHeaders === undefined ? {} : { headerStyle: config.rateLimitHeaders }),
        });
  // Token endpoints count per address; retail per client and location, once the token names the client.
  const addressLimit = limited(
    () => ADDRESS_SCOPE,
    (c) => addressOf(c) ?? '-',
  );
  const retailLimit = limited(
    (c) => c.get('principal').clientId,
    (c) => c.get('locationId'),
  );
  if (addressLimit !== undefined) app.on('POST', [LOGIN_PATH, TOKEN_ENDPOINT_PATH], addressLimit);
  app.post(LOGIN_PATH, throttled, auth.login);
  app.post(TOKEN_ENDPOINT_PATH, throttled, auth.token);
  app.route('/', auth.discovery);
  const records = createRecordReader(store, createPageTokens(secret));
  const authorize = retailAuth(guard ?? auth.guard, locations.exists);
  app.route(
    '/',
    createRetailRoutes({
      // A plain chain: hono/combine's `every` builds a composition per request. On retail paths the limit
      // answers by throwing, never with a response of its own.
      authorize:
        retailLimit === undefined
          ? authorize
          : (c, next) => authorize(c, () => retailLimit(c, next) as Promise<void>),
      records,
      noteCaller: noteToken,
    }),
  );
  if (config.adminToken !== undefined && virtualClock !== undefined) {
    app.use(`${ADMIN_PREFIX}/*`, adminAuth(config.adminToken));
    app.route(
      ADMIN_PREFIX,
      createAdminRoutes({
        store,
        clock: virtualClock,
        journal:
          journal === undefined
            ? journalOffView
            : config.clusterWorker === true
              ? clusterJournalView(journal, process)
              : localJournalView(journal),
        live,
        forgetLocation: locations.forget,
        records,
        faults: faults ?? localFaultControl(createFaultEngine()),
        forgetLoginFailures: () => auth.credentials.throttle.clear(),
        rateLimits: rateLimitControl(
          limiter === undefined || policies === undefined ? undefined : { policies, counter: limiter },
          clock,
        ),
        tokenTtlSeconds: config.tokenTtlSeconds,
      }),
    );
  }
  return {
    app,
    auth,
    clock,
    journal,
    drain: () => {
      draining = true;
    },
    idle: () => deadline.idle(),
    start: () => {
      const stops = [
        auth.start(),
        ...(virtualClock === undefined ? [] : [virtualClock.startSync(CLOCK_SYNC_MS)]),
        ...(live === undefined ? [] : [live.start(LIVE_CHECK_MS)]),
      ];
      return async () => {
        await Promise.all(stops.map((stop) => stop()));
      };
    },
  };
};
