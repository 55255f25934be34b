import cluster from 'node:cluster';
import { statSync } from 'node:fs';
import { prepareDemo } from '../sandbox/demo.js';
import {
  answerMetricsRequests,
  type ClusterEvents,
  clusterExposition,
  type WorkerLike,
} from '../server/cluster-metrics.js';
import { type MetricsEndpoint, startMetricsServer } from '../server/metrics-server.js';
import { type RunningServer, startServer } from '../server/server.js';
import { BAD_PORTS } from '../shared/bad-ports.js';
import { type Clock, systemClock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import { createMetrics, type Metrics } from '../shared/metrics.js';
import { openStore } from '../storage/open-store.js';
import { readKeyMaterial } from '../storage/sealed-store.js';
import type { Store } from '../storage/store.js';
import type { CommandIo } from './command.js';
import type { ServeConfig } from './serve-config.js';
import { createServeOutput, type ServeOutput } from './serve-output.js';
import { loadTls } from './tls.js';

/** A running `larder serve` (one process): where it answers, and how to stop it and close its store. */
export interface ServeHandle {
  url: string;
  publicUrl: string;
  /** The metrics listener's URL, with --metrics-port. */
  metricsUrl?: string;
  stop(): Promise<void>;
}

export interface ServeOptions {
  clock?: Clock;
  logger?: Logger;
  /**
   * Print the banner (URL, demo credentials) and prepare the demo on a new database; workers of a cluster leave
   * both to the primary, and serve the demo it prepared (its admin token, /docs prefill) as it does.
   */
  announce?: boolean;
  /**
   * Aborted when a stop is asked for (SIGTERM, SIGINT) while this is still starting: nothing is served then, and no
   * banner invites anyone to a server that is going. Before the server starts, the start ends with `StartStopped`
   * (the store closed again); after, the handle is handed back without a banner, for the caller to stop.
   */
  signal?: AbortSignal;
}

/** A start cut short by a stop asked for before anything served: a clean stop, not a failure to start. */
export class StartStopped extends Error {
  constructor() {
    super('stopped while starting');
  }
}

/**
 * The admin token to serve with: `--admin-token`, else on a demo database the one made at its first start (a
 * database that was never a demo has none, so its admin API stays off). A `--no-demo` start takes none: it is the
 * production-style start, which nobody can drive or fault without a token its operator gave.
 */
export const withDemoAdminToken = async (store: Store, config: ServeConfig): Promise<ServeConfig> => {
  if (config.adminToken !== undefined || !config.demo) return config;
  const demoToken = await store.settings.demoAdminToken.get();
  return demoToken === undefined ? config : { ...config, adminToken: demoToken };
};

/** Prometheus metrics for this process; under --workers each worker's registry answers the primary's scrape. */
const workerMetrics = (config: ServeConfig): Metrics | undefined => {
  if (config.metricsPort === undefined) return undefined;
  const metrics = createMetrics();
  if (cluster.isWorker) answerMetricsRequests(metrics.registry, process);
  return metrics;
};

/**
 * The primary of --workers: one /metrics listener whose scrape merges the metrics of every worker `serving()`
 * lists (those started and not yet exited).
 */
export const startClusterMetrics = (
  config: ServeConfig,
  serving: () => readonly WorkerLike[],
  events: ClusterEvents,
  logger: Logger,
): Promise<MetricsEndpoint> | undefined => {
  if (config.metricsPort === undefined) return undefined;
  return startMetricsServer(config.host, config.metricsPort, clusterExposition(serving, events), { logger });
};

const BAD_PORT_CONSEQUENCE =
  'browsers will not open /docs or /console there, and fetch clients (@larder/client; larder clock, requests, ' +
  'report, faults and pull) refuse to connect to it, though curl and most other HTTP clients work. Pick another ' +
  'port, such as 8080.';

/**
 * Warnings for a bound port or a public URL's port that fetch refuses (src/shared/bad-ports.ts). Not a refusal:
 * other HTTP clients reach it, and someone may serve only those on purpose.
 */
export const badPortWarnings = (config: Pick<ServeConfig, 'port' | 'publicUrl'>): string[] => {
  // Port 0 asks for any free port: the system picks one from its ephemeral range, where no bad port lies.
  const bound =
    config.port !== 0 && BAD_PORTS.has(config.port)
      ? [`--port ${config.port} is a "bad port" of the Fetch standard: ${BAD_PORT_CONSEQUENCE}`]
      : [];
  // A URL's port is '' for the scheme's default (80, 443), which is never bad.
  const publicPort = config.publicUrl === undefined ? '' : new URL(config.publicUrl).port;
  const announced =
    publicPort !== '' && BAD_PORTS.has(Number(publicPort))
      ? [
          `--public-url ${config.publicUrl} names a "bad port" of the Fetch standard (${publicPort}): ${BAD_PORT_CONSEQUENCE}`,
        ]
      : [];
  return [...bound, ...announced];
};

/**
 * Says at start whether key material is encrypted at rest, so an operator never assumes it is, and whether a key
 * file it was given can be read by other users. A warning, not a refusal: mounted secrets (Kubernetes' default
 * mode) are often 0644 inside a container that runs nothing else. The key material is read first: a database
 * sealed under a KEK that was not given is refused here, not told its keys are "NOT encrypted".
 */
export const logKeyProtection = async (logger: Logger, config: ServeConfig, store: Store): Promise<void> => {
  await readKeyMaterial(store);
  const keyFiles = [config.keyFile, typeof config.tls === 'object' ? config.tls.keyFile : undefined];
  for (const path of keyFiles) {
    const mode = path === undefined ? undefined : statSync(path, { throwIfNoEntry: false })?.mode;
    if (path !== undefined && mode !== undefined && (mode & 0o077) !== 0)
      logger.warn(
        `${path} can be read by other users (mode ${(mode & 0o777).toString(8).padStart(4, '0')}): chmod 600 it, as for any key`,
      );
  }
  if (config.store.keyEncryptionKey !== undefined)
    logger.info('signing keys and secrets are encrypted at rest under the key-encryption key');
  else
    logger.warn(
      'signing keys and secrets are NOT encrypted at rest: they are protected only by file permissions (SQLite, 0600) or database access rights (PostgreSQL); set LARDER_KEY_ENCRYPTION_KEY or --key-file to encrypt them',
    );
};

/**
 * `larder serve` in this process, as the CLI runs it and as tests start it: opens the store, prepares the demo
 * on a new embedded database, serves, and hands back `{ url, stop }`.
 */
export const serve = async (
  config: ServeConfig,
  io: CommandIo,
  options: ServeOptions = {},
  output: ServeOutput = createServeOutput(config, io, options),
): Promise<ServeHandle> => {
  const clock = options.clock ?? systemClock;
  // A function, read afresh: the signal may abort at any await.
  const stopAsked = () => options.signal?.aborted === true;
  const tls = await loadTls(config, io.env);
  const store = await openStore(config.store);
  const metrics = workerMetrics(config);
  let server: RunningServer;
  let metricsEndpoint: MetricsEndpoint | undefined;
  let resolved: ServeConfig;
  try {
    if (options.announce !== false) {
      for (const warning of badPortWarnings(config)) output.logger.warn(warning);
      await logKeyProtection(output.logger, config, store);
    }
    if (options.announce !== false) await prepareDemo(store, clock, output.note, config.demo);
    resolved = await withDemoAdminToken(store, config);
    if (stopAsked()) throw new StartStopped();
    server = await startServer({
      store,
      clock,
      logger: output.logger,
      config: {
        host: config.host,
        port: config.port,
        ...(config.publicUrl === undefined ? {} : { publicUrl: config.publicUrl }),
        tokenTtlSeconds: config.tokenTtlSeconds,
        trustProxy: config.trustProxy,
        ...(resolved.adminToken === undefined ? {} : { adminToken: resolved.adminToken }),
        journalSize: config.journalSize,
        loginThrottle: config.loginThrottle,
        live: config.live,
        demo: config.demo,
        clusterWorker: cluster.isWorker,
        ...(tls === undefined ? {} : { tls: tls.material }),
        ...(metrics === undefined ? {} : { metrics }),
        ...(config.cors === undefined ? {} : { cors: config.cors }),
        rateLimit: config.rateLimit,
        rateLimitHeaders: config.rateLimitHeaders,
        ...(config.faults === undefined ? {} : { faults: config.faults }),
        allowFaultHeader: config.allowFaultHeader,
        requestTimeoutMs: config.requestTimeoutMs,
        shutdownTimeoutMs: config.shutdownTimeoutMs,
        shutdownDelayMs: config.shutdownDelayMs,
        // The primary hands connections out round-robin, so N workers with 1/N each hold the instance's bound.
        maxConnections: Math.max(1, Math.floor(config.maxConnections / config.workers)),
      },
    });
    if (metrics !== undefined && !cluster.isWorker && config.metricsPort !== undefined)
      metricsEndpoint = await startMetricsServer(
        config.host,
        config.metricsPort,
        { contentType: metrics.registry.contentType, render: () => metrics.registry.metrics() },
        { logger: output.logger },
      ).catch(async (error: unknown) => {
        await server.stop();
        throw error;
      });
  } catch (error) {
    // An open pool would keep the process alive after the failure.
    await store.close();
    throw error;
  }
  if (options.announce !== false && !stopAsked())
    await output.banner(store, {
      url: server.url,
      publicUrl: server.publicUrl,
      workers: config.workers,
      ...(resolved.adminToken === undefined ? {} : { adminToken: resolved.adminToken }),
      ...(metricsEndpoint === undefined ? {} : { metricsUrl: metricsEndpoint.url }),
      ...(tls?.generated === true ? { certificate: tls.material.cert } : {}),
    });
  return {
    url: server.url,
    publicUrl: server.publicUrl,
    ...(metricsEndpoint === undefined ? {} : { metricsUrl: metricsEndpoint.url }),
    stop: async () => {
      await metricsEndpoint?.stop();
      await server.stop();
      // Closing the store ends the background work still waiting on it (a poll on a silent PostgreSQL); awaited
      // after, so that none of it logs after "stopped".
      await store.close();
      await server.settled();
      output.logger.info('stopped');
    },
  };
};
