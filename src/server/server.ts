import { createServer, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import type { ThrottleLimit } from '../auth/failure-throttle.js';
import type { TrustProxy } from '../auth/source-address.js';
import { admit } from '../http/connection-gate.js';
import { answerClientError, errorResponse } from '../http/error-edge.js';
import { LarderResponse } from '../http/larder-response.js';
import type { RateLimitHeaderStyle, RatePolicy } from '../middleware/rate-limit/rate-windows.js';
import type { FaultRule } from '../sandbox/fault-schemas.js';
import type { Clock } from '../shared/clock.js';
import { LarderError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { Metrics } from '../shared/metrics.js';
import {
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_SHUTDOWN_TIMEOUT_SECONDS,
  HEADERS_TIMEOUT_MS,
  KEEP_ALIVE_TIMEOUT_MS,
  REQUEST_BODY_TIMEOUT_MS,
} from '../shared/server-limits.js';
import { compileValidators } from '../shared/validator.js';
import type { Store } from '../storage/store.js';
import { createApp } from './app.js';
import type { Schedule } from './cluster-supervisor.js';
import { capConnections } from './connection-cap.js';
import { tuneHeapGrowth } from './heap-growth.js';

export interface ServerConfig {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Issuer and public base URL; default http://HOST:PORT as bound (localhost for a wildcard host). */
  publicUrl?: string;
  tokenTtlSeconds: number;
  trustProxy: TrustProxy;
  adminToken?: string;
  journalSize?: number;
  loginThrottle?: ThrottleLimit | 'off';
  live?: boolean;
  /** See AppConfig.demo. */
  demo?: boolean;
  clusterWorker?: boolean;
  /** Serve HTTPS with this PEM key and certificate (chain). */
  tls?: TlsMaterial;
  /** Measure into these (served by the metrics listener, src/server/metrics-server.ts). */
  metrics?: Metrics;
  cors?: readonly string[];
  rateLimit?: readonly RatePolicy[] | 'off';
  rateLimitHeaders?: RateLimitHeaderStyle;
  faults?: readonly FaultRule[];
  allowFaultHeader?: boolean;
  /** Default DEFAULT_REQUEST_TIMEOUT_SECONDS. */
  requestTimeoutMs?: number;
  /** Default DEFAULT_SHUTDOWN_TIMEOUT_SECONDS. */
  shutdownTimeoutMs?: number;
  /** After a stop begins, keep accepting this long (readiness failing) before closing; default 0. */
  shutdownDelayMs?: number;
  /** Default DEFAULT_MAX_CONNECTIONS. */
  maxConnections?: number;
  /** Default HEADERS_TIMEOUT_MS (tests shorten it). */
  headersTimeoutMs?: number;
}

export interface TlsMaterial {
  key: string;
  cert: string;
}

/** A server started in process: where it answers, and how to stop it. */
export interface RunningServer {
  url: string;
  publicUrl: string;
  port: number;
  /** Stops accepting, lets in-flight requests finish (bounded), then tells background work to stop. */
  stop(): Promise<void>;
  /**
   * Resolves once the background work running at stop(), and the requests still being handled then, have ended
   * (at most BACKGROUND_STOP_GUARD_MS after it). Work waiting on a silent database ends when the store closes:
   * close the store, then await this, so that nothing the work says comes after the stop.
   */
  settled(): Promise<void>;
}

export const TIMEOUT_CHECK_INTERVAL_MS = 1000;

/** A guard only: once the store is closed, a background run ends within one store call (or one live demo day). */
const BACKGROUND_STOP_GUARD_MS = 5000;

/** `work`, or nothing after `ms`: a stop must end even if some work never does. */
const atMost = (work: Promise<void>, ms: number): Promise<void> =>
  new Promise<void>((resolve) => {
    const guard = setTimeout(resolve, ms).unref();
    const done = () => {
      clearTimeout(guard);
      resolve();
    };
    work.then(done, done);
  });

/** The unspecified addresses, as the URL parser spells them (IPv4 any, IPv6 any, IPv4-mapped any). */
const WILDCARD = new Set(['0.0.0.0', '[::]', '[::ffff:0:0]']);

/**
 * Whether binding `host` listens on every interface. The system's resolver also reads `0`, `0.0.0.00`, `0x0`
 * and `::0` as the unspecified address; the URL parser canonicalises those spellings the same way.
 */
export const isWildcardHost = (host: string): boolean => {
  const bare = host.startsWith('[') ? host.slice(1, -1) : host;
  try {
    return WILDCARD.has(new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}/`).hostname);
  } catch {
    return false;
  }
};

/** The URL a local client uses to reach a server bound to `host` (localhost for a wildcard bind). */
export const localUrl = (host: string, port: number, tls = false): string =>
  `${tls ? 'https' : 'http'}://${isWildcardHost(host) ? 'localhost' : host.includes(':') ? `[${host}]` : host}:${port}`;

/** Binds `server`; resolves with the bound port. A port in use is an error naming `flag`. */
export const listen = (server: Server, port: number, host: string, flag = '--port') =>
  new Promise<number>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(
              `Port ${port} on ${host} is already in use: stop the other server or pick another ${flag}.`,
            )
          : error,
      ),
    );
    server.listen(port, host, () => {
      server.removeAllListeners('error');
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });

/**
 * Binds first, so `--port 0` and the default issuer (which contains the bound port) work. Requests that race the
 * few milliseconds before the app exists get a 503 ErrorMessage from a lone process, whose readiness is its own;
 * a cluster worker holds them until its app is built instead, since the primary hands it connections as soon as
 * it listens while the other workers serve (a worker replacing a dead one answered some with 503).
 */
export const startServer = async (deps: {
  store: Store;
  clock: Clock;
  logger: Logger;
  config: ServerConfig;
  /** Timers of the server's own (the refusal log's interval); default real, unref'd ones. */
  schedule?: Schedule;
}): Promise<RunningServer> => {
  const { store, clock, logger, config } = deps;
  tuneHeapGrowth();
  // `env` carries the node request/socket: the login throttle reads the client address from it.
  // The process is alive (/healthz) but not ready (/readyz and the rest) until the app and its keys exist.
  type Handle = (request: Request, env: unknown) => Response | Promise<Response>;
  const startingUp = () => errorResponse(new LarderError('ERR_UNAVAILABLE', { message: 'Starting up.' }));
  let built!: (app: Handle | undefined) => void;
  const whenBuilt = new Promise<Handle | undefined>((resolve) => {
    built = resolve;
  });
  let handle: Handle = (request, env) =>
    new URL(request.url).pathname === '/healthz'
      ? Response.json({ status: 'ok' })
      : config.clusterWorker === true
        ? holdUntilBuilt(request, env)
        : startingUp();
  const holdUntilBuilt: Handle = (request, env) => {
    logger.debug('request held until the app is built', { path: new URL(request.url).pathname });
    return whenBuilt.then((app) => {
      if (app !== undefined) return app(request, env);
      // The listener is closing: a kept-alive connection would otherwise hold it open until its idle timeout.
      const refused = startingUp();
      refused.headers.set('Connection', 'close');
      return refused;
    });
  };
  const listener = getRequestListener(
    (request: Request, env: unknown) => {
      const { incoming, outgoing } = env as HttpBindings;
      // HTTP/1.1 requires Host (RFC 9112 §3.2); Node is told not to refuse its absence itself, since its bare
      // 400 has no body and HTTP/1.0 may rightly leave it out.
      if (incoming.headers.host === undefined && incoming.httpVersionMinor >= 1)
        return errorResponse(
          new LarderError('ERR_VALIDATION', {
            fieldName: 'Host',
            message: 'An HTTP/1.1 request needs a Host header.',
          }),
        );
      const admitted = admit(incoming, outgoing);
      return admitted === undefined ? handle(request, env) : admitted.then(() => handle(request, env));
    },
    {
      // The name a request without Host (HTTP/1.0) is served under: only the URL's path is ever read.
      hostname: 'localhost',
      // A request that is no URL (`OPTIONS *`, a malformed Host) still gets an ErrorMessage, not a bare 400.
      errorHandler: (error) => {
        if ((error as Error | undefined)?.name === 'RequestError')
          return errorResponse(
            new LarderError('ERR_VALIDATION', { message: 'The request target or Host header is not valid.' }),
          );
        logger.error('request failed before the app', { error });
        return errorResponse(new LarderError('ERR_INTERNAL'));
      },
    },
  );
  let stopping = false;
  // Once a stop has begun, every answer closes its connection (`Connection: close`): a keep-alive client leaves
  // after its answer instead of staying on a server that is going (closing the listener ends only idle
  // connections; one busy then would stay open until --shutdown-timeout, served all the while). In a cluster the
  // client's next connection goes to a worker that serves on.
  class Answer extends LarderResponse {
    override writeHead(...args: Parameters<LarderResponse['writeHead']>): this {
      if (stopping) this.shouldKeepAlive = false;
      return super.writeHead(...args);
    }
  }
  // Node checks the header and request timeouts this often (default 30 s, which would triple the bound).
  // LarderResponse: the pipeline's own headers are written with the route's, in one writeHead.
  const serverOptions = {
    connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    ServerResponse: Answer as typeof ServerResponse,
    requireHostHeader: false,
  };
  const server: Server =
    config.tls === undefined
      ? createServer(serverOptions, listener)
      : createHttpsServer({ ...serverOptions, key: config.tls.key, cert: config.tls.cert }, listener);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = config.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_BODY_TIMEOUT_MS;
  capConnections(server, config.maxConnections ?? DEFAULT_MAX_CONNECTIONS, {
    logger,
    listener: 'public',
    ...(config.clusterWorker === undefined ? {} : { clusterWorker: config.clusterWorker }),
    ...(config.metrics === undefined ? {} : { metrics: config.metrics }),
    ...(deps.schedule === undefined ? {} : { schedule: deps.schedule }),
  });
  server.on('clientError', answerClientError);
  const port = await listen(server, config.port, config.host);
  const url = localUrl(config.host, port, config.tls !== undefined);
  const publicUrl = (config.publicUrl ?? url).replace(/\/+$/, '');
  logger.debug('bound; building the app (not ready yet)', { url });

  let larder: Awaited<ReturnType<typeof createApp>>;
  let stopBackground: () => Promise<void>;
  let backgroundStopped: Promise<void> = Promise.resolve();
  try {
    larder = await createApp({
      store,
      clock,
      logger,
      config: {
        publicUrl,
        tokenTtlSeconds: config.tokenTtlSeconds,
        trustProxy: config.trustProxy,
        ...(config.adminToken === undefined ? {} : { adminToken: config.adminToken }),
        ...(config.journalSize === undefined ? {} : { journalSize: config.journalSize }),
        ...(config.loginThrottle === undefined ? {} : { loginThrottle: config.loginThrottle }),
        ...(config.live === undefined ? {} : { live: config.live }),
        ...(config.demo === undefined ? {} : { demo: config.demo }),
        ...(config.clusterWorker === undefined ? {} : { clusterWorker: config.clusterWorker }),
        ...(config.cors === undefined ? {} : { cors: config.cors }),
        ...(config.rateLimit === undefined ? {} : { rateLimit: config.rateLimit }),
        ...(config.rateLimitHeaders === undefined ? {} : { rateLimitHeaders: config.rateLimitHeaders }),
        ...(config.faults === undefined ? {} : { faults: config.faults }),
        ...(config.allowFaultHeader === undefined ? {} : { allowFaultHeader: config.allowFaultHeader }),
        ...(config.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: config.requestTimeoutMs }),
      },
      ...(config.metrics === undefined ? {} : { metrics: config.metrics }),
    });
    // Before the app is ready: otherwise the first request of each shape would compile its validator.
    compileValidators();
    stopBackground = larder.start();
  } catch (error) {
    built(undefined);
    server.close();
    throw error;
  }
  const { app } = larder;
  handle = (request, env) => app.fetch(request, env);
  built(handle);

  return {
    url,
    publicUrl,
    port,
    stop: async () => {
      stopping = true;
      larder.drain();
      // Readiness fails at once; a balancer that polls it stops sending before the listener goes away.
      const delayMs = config.shutdownDelayMs ?? 0;
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const deadline = setTimeout(
        () => server.closeAllConnections(),
        config.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_SECONDS * 1000,
      );
      await closed;
      clearTimeout(deadline);
      // Requests whose connections were cut may still be waiting on the store; closing it ends them too.
      backgroundStopped = atMost(
        Promise.all([stopBackground(), larder.idle()]).then(() => {}),
        BACKGROUND_STOP_GUARD_MS,
      );
    },
    settled: () => backgroundStopped,
  };
};
