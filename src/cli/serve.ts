import cluster from 'node:cluster';
import { prepareDemo, printDemo } from '../sandbox/demo.js';
import { type RunningServer, startServer } from '../server/server.js';
import { type Clock, systemClock } from '../shared/clock.js';
import { createJsonLogger, type Logger } from '../shared/logger.js';
import { openStore } from '../storage/open-store.js';
import type { Store } from '../storage/store.js';
import type { CommandIo } from './command.js';
import type { ServeConfig } from './serve-config.js';

/** A running `larder serve` (one process): where it answers, and how to stop it and close its store. */
export interface ServeHandle {
  url: string;
  publicUrl: string;
  stop(): Promise<void>;
}

export interface ServeOptions {
  clock?: Clock;
  logger?: Logger;
  /** Print the banner (URL, demo credentials); workers of a cluster leave that to the primary. */
  announce?: boolean;
}

/** The banner: where Larder listens and, on a demo database, the credentials and a curl to try. */
export const announce = async (
  store: Store,
  io: CommandIo,
  server: { url: string; publicUrl: string },
  config: Pick<ServeConfig, 'workers' | 'adminToken'> &
    Partial<Pick<ServeConfig, 'rateLimit' | 'faults' | 'allowFaultHeader'>>,
): Promise<void> => {
  io.stdout(
    `Larder is listening on ${server.url} (issuer ${server.publicUrl}, ${store.describe()} storage, ${config.workers} worker(s)).\n`,
  );
  // An operator should see at once that this server refuses or breaks requests on purpose.
  if (config.rateLimit !== undefined && config.rateLimit !== 'off')
    io.stdout(
      `Rate limits: ${config.rateLimit.map((p) => `${p.limit} per ${p.windowMs / 1000} s`).join(', ')} (429 past them).\n`,
    );
  if (config.faults !== undefined && config.faults.length > 0)
    io.stdout(`Fault injection: ${config.faults.length} rule(s) from --faults.\n`);
  if (config.allowFaultHeader === true) io.stdout('Fault injection: the Larder-Fault header is honoured.\n');
  await printDemo(store, server.publicUrl, io.stdout, config.adminToken);
  io.stdout('Press Ctrl-C to stop.\n');
};

/**
 * The admin token to serve with: `--admin-token`, else on a demo database the one made at its first start (a
 * database that was never a demo has none, so its admin API stays off).
 */
export const withDemoAdminToken = async (store: Store, config: ServeConfig): Promise<ServeConfig> => {
  if (config.adminToken !== undefined) return config;
  const demoToken = await store.settings.demoAdminToken.get();
  return demoToken === undefined ? config : { ...config, adminToken: demoToken };
};

/**
 * `larder serve` in this process, as the CLI runs it and as tests start it: opens the store, prepares the demo
 * on a new embedded database, serves, and hands back `{ url, stop }`.
 */
export const serve = async (
  config: ServeConfig,
  io: CommandIo,
  options: ServeOptions = {},
): Promise<ServeHandle> => {
  const store = await openStore(config.store);
  let server: RunningServer;
  let resolved: ServeConfig;
  try {
    if (config.demo) await prepareDemo(store, options.clock ?? systemClock, io.stdout);
    resolved = await withDemoAdminToken(store, config);
    server = await startServer({
      store,
      clock: options.clock ?? systemClock,
      logger: options.logger ?? createJsonLogger(),
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
        clusterWorker: cluster.isWorker,
        rateLimit: config.rateLimit,
        ...(config.faults === undefined ? {} : { faults: config.faults }),
        allowFaultHeader: config.allowFaultHeader,
      },
    });
  } catch (error) {
    // An open pool would keep the process alive after the failure.
    await store.close();
    throw error;
  }
  if (options.announce !== false) await announce(store, io, server, resolved);
  return {
    url: server.url,
    publicUrl: server.publicUrl,
    stop: async () => {
      await server.stop();
      await store.close();
    },
  };
};
