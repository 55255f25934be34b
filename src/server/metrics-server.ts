import { createServer } from 'node:http';
import type { Logger } from '../shared/logger.js';
import { HEADERS_TIMEOUT_MS } from '../shared/server-limits.js';
import type { Schedule } from './cluster-supervisor.js';
import { capConnections } from './connection-cap.js';
import { listen, localUrl, TIMEOUT_CHECK_INTERVAL_MS } from './server.js';

export interface MetricsEndpoint {
  url: string;
  stop(): Promise<void>;
}

/** A scraper holds a connection or two: a few more for people with curl, and no pile of idle ones. */
const MAX_METRICS_CONNECTIONS = 16;

export interface MetricsLimits {
  maxConnections?: number;
  /** Default HEADERS_TIMEOUT_MS, as on the public port (tests shorten it). */
  headersTimeoutMs?: number;
  /** Warned of connections refused over the cap (rate-bounded); they are counted in no metric. */
  logger?: Logger;
  /** Timers of the refusal log; default real, unref'd ones. */
  schedule?: Schedule;
}

export interface Exposition {
  contentType: string;
  /** The Prometheus text exposition of every metric (of every worker, under --workers). */
  render(): Promise<string>;
}

/**
 * `GET /metrics` on a listener of its own (`--metrics-port`), so the public port never exposes it: scrape it
 * from inside the network. Anything else answers 404. Bounded as the public port is (Node's defaults would hold a
 * request head for a minute, and any number of connections).
 */
export const startMetricsServer = async (
  host: string,
  port: number,
  exposition: Exposition,
  limits: MetricsLimits = {},
): Promise<MetricsEndpoint> => {
  const server = createServer(
    { connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS },
    (request, response) => {
      const path = (request.url ?? '').split('?')[0];
      if (request.method !== 'GET' || path !== '/metrics') {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('Only GET /metrics is served here.\n');
        return;
      }
      exposition.render().then(
        (text) => response.writeHead(200, { 'content-type': exposition.contentType }).end(text),
        (error: unknown) =>
          response
            .writeHead(500, { 'content-type': 'text/plain' })
            .end(`Metrics unavailable: ${error instanceof Error ? error.message : String(error)}\n`),
      );
    },
  );
  server.headersTimeout = limits.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  server.requestTimeout = HEADERS_TIMEOUT_MS;
  capConnections(
    server,
    limits.maxConnections ?? MAX_METRICS_CONNECTIONS,
    limits.logger === undefined
      ? undefined
      : {
          logger: limits.logger,
          listener: 'metrics',
          ...(limits.schedule === undefined ? {} : { schedule: limits.schedule }),
        },
  );
  const bound = await listen(server, port, host, '--metrics-port');
  return {
    url: `${localUrl(host, bound)}/metrics`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
};
