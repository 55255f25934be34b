import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import type { ThrottleLimit } from '../auth/failure-throttle.js';
import { answerClientError, errorResponse } from '../http/error-edge.js';
import type { RatePolicy } from '../middleware/rate-limit/rate-windows.js';
import type { FaultRule } from '../sandbox/fault-schemas.js';
import type { Clock } from '../shared/clock.js';
import { LarderError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { Store } from '../storage/store.js';
import { createApp } from './app.js';

export interface ServerConfig {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Issuer and public base URL; default http://HOST:PORT as bound (localhost for a wildcard host). */
  publicUrl?: string;
  tokenTtlSeconds: number;
  trustProxy: boolean;
  adminToken?: string;
  journalSize?: number;
  loginThrottle?: ThrottleLimit | 'off';
  live?: boolean;
  clusterWorker?: boolean;
  rateLimit?: readonly RatePolicy[] | 'off';
  faults?: readonly FaultRule[];
  allowFaultHeader?: boolean;
}

/** A server started in process: where it answers, and how to stop it. */
export interface RunningServer {
  url: string;
  publicUrl: string;
  port: number;
  /** Stops accepting, lets in-flight requests finish (bounded), then stops background work. */
  stop(): Promise<void>;
}

const WILDCARD = new Set(['0.0.0.0', '::', '[::]']);

/** The URL a local client uses to reach a server bound to `host` (localhost for a wildcard bind). */
export const localUrl = (host: string, port: number): string =>
  `http://${WILDCARD.has(host) ? 'localhost' : host.includes(':') ? `[${host}]` : host}:${port}`;

const listen = (server: Server, port: number, host: string) =>
  new Promise<number>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(
              `Port ${port} on ${host} is already in use: stop the other server or pick another --port.`,
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
 * Binds first, so `--port 0` and the default issuer (which contains the bound port) work; requests that race
 * the few milliseconds before the app exists get a 503 ErrorMessage.
 */
export const startServer = async (deps: {
  store: Store;
  clock: Clock;
  logger: Logger;
  config: ServerConfig;
}): Promise<RunningServer> => {
  const { store, clock, logger, config } = deps;
  // `env` carries the node request/socket: the login throttle reads the client address from it.
  let handle: (request: Request, env: unknown) => Response | Promise<Response> = () =>
    errorResponse(new LarderError('ERR_UNAVAILABLE', { message: 'Starting up.' }));
  const server = createAdaptorServer({
    fetch: (request: Request, env: unknown) => handle(request, env),
  }) as Server;
  // Longer than the usual load balancer idle timeout (60 s), so the balancer closes idle connections first.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 30_000;
  server.on('clientError', answerClientError);
  const port = await listen(server, config.port, config.host);
  const url = localUrl(config.host, port);
  const publicUrl = (config.publicUrl ?? url).replace(/\/+$/, '');

  let larder: Awaited<ReturnType<typeof createApp>>;
  let stopPolling: () => void;
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
        ...(config.clusterWorker === undefined ? {} : { clusterWorker: config.clusterWorker }),
        ...(config.rateLimit === undefined ? {} : { rateLimit: config.rateLimit }),
        ...(config.faults === undefined ? {} : { faults: config.faults }),
        ...(config.allowFaultHeader === undefined ? {} : { allowFaultHeader: config.allowFaultHeader }),
      },
    });
    stopPolling = larder.start();
  } catch (error) {
    server.close();
    throw error;
  }
  const { app } = larder;
  handle = (request, env) => app.fetch(request, env);

  return {
    url,
    publicUrl,
    port,
    stop: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const deadline = setTimeout(() => server.closeAllConnections(), 10_000);
      await closed;
      clearTimeout(deadline);
      stopPolling();
    },
  };
};
