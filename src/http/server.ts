import { randomUUID } from 'node:crypto';
import { type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { createAdaptorServer } from '@hono/node-server';
import { createAuthService } from '../auth/auth-service.js';
import type { Clock } from '../shared/clock.js';
import { LarderError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { Store } from '../storage/store.js';
import { createApp } from './app.js';
import { toErrorMessage } from './error-message.js';

export interface ServerConfig {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Issuer and public base URL; default http://HOST:PORT as bound (localhost for a wildcard host). */
  publicUrl?: string;
  tokenTtlSeconds: number;
  trustProxy: boolean;
}

export interface RunningServer {
  url: string;
  publicUrl: string;
  port: number;
  /** Stops accepting, lets in-flight requests finish (bounded), then stops background work. */
  close(): Promise<void>;
}

const WILDCARD = new Set(['0.0.0.0', '::', '[::]']);

/** The URL a local client uses to reach a server bound to `host` (localhost for a wildcard bind). */
export const localUrl = (host: string, port: number): string =>
  `http://${WILDCARD.has(host) ? 'localhost' : host.includes(':') ? `[${host}]` : host}:${port}`;

/**
 * Requests Node's HTTP parser rejects before any handler runs (oversized headers or URL, malformed syntax)
 * still get an ErrorMessage body rather than a bare status line.
 */
const answerClientError = (error: NodeJS.ErrnoException, socket: Duplex) => {
  if (!socket.writable) return;
  const larderError =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new LarderError('ERR_HEADERS_TOO_LARGE')
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new LarderError('ERR_REQUEST_TIMEOUT')
        : new LarderError('ERR_VALIDATION', { message: 'The request is not valid HTTP.' });
  const body = JSON.stringify(toErrorMessage(larderError, randomUUID()));
  socket.end(
    `HTTP/1.1 ${larderError.status} ${STATUS_CODES[larderError.status]}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
};

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
 * the few milliseconds before the app exists get a 503.
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
    new Response('{"status":"503","code":50301,"message":"Starting up.","canRetry":"true"}', { status: 503 });
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
  let stopPolling: () => void;

  let app: Awaited<ReturnType<typeof createApp>>;
  try {
    const auth = await createAuthService({
      store,
      clock,
      logger,
      config: { publicUrl, tokenTtlSeconds: config.tokenTtlSeconds, trustProxy: config.trustProxy },
    });
    app = await createApp({ store, logger, auth, publicUrl });
    stopPolling = auth.start();
  } catch (error) {
    server.close();
    throw error;
  }
  handle = (request, env) => app.fetch(request, env);

  return {
    url,
    publicUrl,
    port,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const deadline = setTimeout(() => server.closeAllConnections(), 10_000);
      await closed;
      clearTimeout(deadline);
      stopPolling();
    },
  };
};
