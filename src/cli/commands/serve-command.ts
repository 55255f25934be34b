import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { DEFAULT_TOKEN_TTL_SECONDS } from '../../auth/auth-service.js';
import { localUrl, startServer } from '../../http/server.js';
import { systemClock } from '../../shared/clock.js';
import { createJsonLogger } from '../../shared/logger.js';
import type { Store } from '../../storage/store.js';
import {
  type Command,
  type CommandIo,
  intOption,
  type ParsedArgs,
  STORE_OPTIONS,
  UsageError,
} from '../command.js';
import { prepareDemo, printDemo } from '../demo.js';
import { openStoreFromArgs } from '../store-options.js';

const parseWorkers = (args: ParsedArgs): number =>
  args.strings['workers'] === 'auto' ? availableParallelism() : intOption(args, 'workers', 1, 64);

const parsePublicUrl = (raw: string | undefined): string | undefined => {
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--public-url must be an absolute http(s) URL, not ${raw}.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError('--public-url must use http or https.');
  return raw.replace(/\/+$/, '');
};

/** Waits for SIGINT/SIGTERM, then runs `stop` once. */
const untilSignal = (stop: () => Promise<void>) =>
  new Promise<void>((resolve) => {
    const onSignal = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      stop().then(resolve, resolve);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });

type Announce = (url: string, publicUrl: string) => Promise<void>;

const serveHere = async (args: ParsedArgs, store: Store, announce: Announce | undefined): Promise<number> => {
  const logger = createJsonLogger();
  const publicUrl = parsePublicUrl(args.strings['public-url']);
  const server = await startServer({
    store,
    clock: systemClock,
    logger,
    config: {
      host: args.strings['host'] ?? '127.0.0.1',
      port: intOption(args, 'port', 0, 65535),
      ...(publicUrl === undefined ? {} : { publicUrl }),
      tokenTtlSeconds: intOption(args, 'token-ttl', 60, 31_536_000),
      trustProxy: args.flags['trust-proxy'] === true,
    },
  }).catch(async (error: unknown) => {
    // An open pool would keep the process alive after the failure.
    await store.close();
    throw error;
  });
  await announce?.(server.url, server.publicUrl);
  await untilSignal(async () => {
    await server.close();
    await store.close();
  });
  return 0;
};

const stopWorkers = () =>
  Promise.all(
    Object.values(cluster.workers ?? {}).map(
      (worker) =>
        new Promise<void>((resolve) => {
          if (worker === undefined || worker.isDead()) return resolve();
          worker.once('exit', () => resolve());
          worker.process.kill('SIGTERM');
        }),
    ),
  );

/**
 * A worker that crashes after it was serving is replaced; one that dies before it ever listened (port in use,
 * bad schema, database down) would die again, so that stops everything with exit code 1.
 */
const serveWithWorkers = (args: ParsedArgs, io: CommandIo, workers: number, announce: Announce) =>
  new Promise<number>((resolve) => {
    let stopping = false;
    const listened = new Set<number>();
    const finish = (code: number) => {
      if (stopping) return;
      stopping = true;
      void stopWorkers().then(() => resolve(code));
    };
    cluster.on('exit', (worker, code, signal) => {
      if (stopping) return;
      if (!listened.has(worker.id)) {
        io.stderr(
          `larder: worker ${worker.process.pid} exited (${signal ?? code}) before serving; stopping.\n`,
        );
        finish(1);
        return;
      }
      io.stderr(`larder: worker ${worker.process.pid} exited (${signal ?? code}); starting another.\n`);
      setTimeout(() => cluster.fork(), 1000);
    });
    cluster.on('listening', (worker, address) => {
      listened.add(worker.id);
      if (listened.size !== 1) return;
      const url = localUrl(args.strings['host'] ?? '127.0.0.1', address.port);
      void announce(url, parsePublicUrl(args.strings['public-url']) ?? url);
    });
    for (let i = 0; i < workers; i++) cluster.fork();
    void untilSignal(async () => finish(0));
  });

export const serveCommand: Command = {
  name: 'serve',
  summary: 'Serve the authentication and retail APIs on one port.',
  usage:
    'larder serve [--db PATH | --database-url URL] [--host HOST] [--port PORT] [--workers N] [--no-demo]',
  options: {
    ...STORE_OPTIONS,
    host: {
      type: 'string',
      env: 'HOST',
      default: '127.0.0.1',
      placeholder: 'HOST',
      description: 'Address to bind.',
    },
    port: {
      type: 'string',
      env: 'PORT',
      default: '8080',
      placeholder: 'PORT',
      description: 'Port to bind (0: any free port).',
    },
    'public-url': {
      type: 'string',
      env: 'LARDER_PUBLIC_URL',
      placeholder: 'URL',
      description: 'Public base URL and token issuer, when behind a proxy (default http://HOST:PORT).',
    },
    'token-ttl': {
      type: 'string',
      env: 'LARDER_TOKEN_TTL',
      default: String(DEFAULT_TOKEN_TTL_SECONDS),
      placeholder: 'SECONDS',
      description: 'Access token lifetime.',
    },
    workers: {
      type: 'string',
      env: 'LARDER_WORKERS',
      default: '1',
      placeholder: 'N',
      description: 'Worker processes sharing the port (node:cluster); "auto" = one per core.',
    },
    'trust-proxy': {
      type: 'boolean',
      env: 'LARDER_TRUST_PROXY',
      description: 'Take client addresses from X-Forwarded-For (only behind a proxy you run).',
    },
    migrate: {
      type: 'boolean',
      env: 'LARDER_MIGRATE',
      description: 'PostgreSQL: apply pending migrations at start instead of refusing an old schema.',
    },
    'pool-size': {
      type: 'string',
      env: 'LARDER_POOL_SIZE',
      default: '10',
      placeholder: 'N',
      description: 'PostgreSQL connections per worker process.',
    },
    'no-demo': {
      type: 'boolean',
      env: 'LARDER_NO_DEMO',
      description: 'Start empty: no demo data or demo client on a new database.',
    },
  },
  notes:
    'On a new database (and without --no-demo) Larder seeds three demo locations with ~6 months of data,\n' +
    'creates a demo client granted all of them, and prints its credentials and a curl to try.',
  run: async (args, io) => {
    const workers = parseWorkers(args);
    intOption(args, 'port', 0, 65535);
    parsePublicUrl(args.strings['public-url']);
    const poolSize = intOption(args, 'pool-size', 1, 1000);
    // The primary migrates (once); workers only check the schema.
    if (cluster.isWorker) {
      // A worker's IPC channel keeps it alive, so it must exit explicitly, also when it cannot start.
      const code = await serveHere(args, await openStoreFromArgs(args, { poolSize }), undefined).catch(
        (error) => {
          io.stderr(`larder: ${error instanceof Error ? error.message : String(error)}\n`);
          return 1;
        },
      );
      process.exit(code);
    }
    const store = await openStoreFromArgs(args, { migrate: args.flags['migrate'] === true, poolSize });
    if (args.flags['no-demo'] !== true) await prepareDemo(store, io);
    const announce: Announce = async (url, publicUrl) => {
      io.stdout(
        `Larder is listening on ${url} (issuer ${publicUrl}, ${store.describe()} storage, ${workers} worker(s)).\n`,
      );
      await printDemo(store, publicUrl, io);
      io.stdout('Press Ctrl-C to stop.\n');
    };
    if (workers === 1) return serveHere(args, store, announce);
    // Workers open their own connections; the primary keeps one only to print the banner.
    return serveWithWorkers(args, io, workers, announce).finally(() => store.close());
  },
};
