import { createServer } from 'node:http';
import { listen, localUrl } from './server.js';

export interface MetricsEndpoint {
  url: string;
  stop(): Promise<void>;
}

export interface Exposition {
  contentType: string;
  /** The Prometheus text exposition of every metric (of every worker, under --workers). */
  render(): Promise<string>;
}

/**
 * `GET /metrics` on a listener of its own (`--metrics-port`), so the public port never exposes it: scrape it
 * from inside the network. Anything else answers 404.
 */
export const startMetricsServer = async (
  host: string,
  port: number,
  exposition: Exposition,
): Promise<MetricsEndpoint> => {
  const server = createServer((request, response) => {
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
  });
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
