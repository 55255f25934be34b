import cluster, { type Worker } from 'node:cluster';
import { serveClusterRateLimiter } from '../../middleware/rate-limit/rate-windows.js';
import { prepareDemo } from '../../sandbox/demo.js';
import { serveClusterFaults } from '../../sandbox/fault-control.js';
import { createFaultEngine } from '../../sandbox/faults.js';
import { DEFAULT_JOURNAL_SIZE } from '../../sandbox/journal.js';
import { serveClusterJournal } from '../../sandbox/journal-view.js';
import { createSupervisor } from '../../server/cluster-supervisor.js';
import { localUrl } from '../../server/server.js';
import { systemClock } from '../../shared/clock.js';
import {
  DEFAULT_HOST,
  DEFAULT_TOKEN_TTL_SECONDS,
  MAX_TOKEN_TTL_SECONDS,
  MIN_TOKEN_TTL_SECONDS,
} from '../../shared/limits.js';
import { openStore } from '../../storage/open-store.js';
import { type Command, type CommandIo, STORE_OPTIONS } from '../command.js';
import { announce, serve, withDemoAdminToken } from '../serve.js';
import { parseServeConfig, type ServeConfig } from '../serve-config.js';

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

/** What a worker sends the primary once its app is built and answering (not merely bound). */
const READY = 'larder:ready';

/**
 * The primary of `--workers N`: the supervisor keeps N workers serving (src/server/cluster-supervisor.ts), and
 * the banner is printed once every worker is ready, so nothing the banner invites meets a starting worker.
 */
const serveWithWorkers = async (
  config: ServeConfig,
  io: CommandIo,
  onReady: (server: { url: string; publicUrl: string }) => Promise<void>,
): Promise<number> => {
  let port: number | undefined;
  const ready = new Set<number>();
  let announced = false;
  const announceOnce = () => {
    if (announced || port === undefined || ready.size < config.workers) return;
    announced = true;
    const url = localUrl(config.host, port);
    void onReady({ url, publicUrl: config.publicUrl ?? url });
  };
  cluster.on('message', (worker, message) => {
    if (message !== READY) return;
    ready.add(worker.id);
    announceOnce();
  });
  const supervisor = createSupervisor({
    cluster,
    workers: config.workers,
    log: (line) => io.stderr(`larder: ${line}\n`),
    onListening: (address) => {
      port = address.port;
      announceOnce();
    },
  });
  // The journal the admin API shows covers every worker: the primary collects each worker's part.
  serveClusterJournal(
    () =>
      Object.values(cluster.workers ?? {}).filter(
        (worker): worker is NonNullable<typeof worker> => worker !== undefined && !worker.isDead(),
      ),
    (listener) => cluster.on('message', listener),
  );
  // Rate-limit counts and fault rules are held here too, so every worker counts against one total.
  const onWorkerMessage = (listener: (worker: Worker, message: unknown) => void) => {
    cluster.on('message', listener);
  };
  if (config.rateLimit !== 'off') serveClusterRateLimiter(onWorkerMessage, config.rateLimit);
  serveClusterFaults(onWorkerMessage, createFaultEngine(config.faults), (message) => {
    for (const worker of Object.values(cluster.workers ?? {}))
      if (worker?.isConnected()) worker.send(message as object);
  });
  supervisor.start();
  void untilSignal(async () => {
    await supervisor.stop();
  });
  const outcome = await supervisor.done;
  if (outcome.exitCode !== 0) io.stderr(`larder: ${outcome.reason}\n`);
  return outcome.exitCode;
};

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
      default: DEFAULT_HOST,
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
      description: `Access token lifetime, ${MIN_TOKEN_TTL_SECONDS} to ${MAX_TOKEN_TTL_SECONDS}.`,
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
    'admin-token': {
      type: 'string',
      env: 'LARDER_ADMIN_TOKEN',
      placeholder: 'TOKEN',
      description:
        'Turn the admin API (/_larder/: clock, fixtures, journal, report) on, locked by this token (16+ characters). A demo database has its own, printed at start.',
    },
    'journal-size': {
      type: 'string',
      env: 'LARDER_JOURNAL_SIZE',
      default: String(DEFAULT_JOURNAL_SIZE),
      placeholder: 'N',
      description: 'Requests the journal keeps (with the admin API on).',
    },
    'login-throttle': {
      type: 'string',
      env: 'LARDER_LOGIN_THROTTLE',
      default: '10/min',
      placeholder: 'N/WINDOW',
      description:
        'Failed logins allowed per client id and address before 429 (10/min, 5/30s, 100/h), or off. Correct credentials from elsewhere are never refused.',
    },
    'rate-limit': {
      type: 'string',
      env: 'LARDER_RATE_LIMIT',
      default: 'off',
      placeholder: 'LIMITS',
      description:
        'Rate limits as the platform applies them: platform (20/s and 10000/15m), limits such as 5/s,100/15m, or off. Retail counts per client and location, login and token per address; 429 with Retry-After past them.',
    },
    faults: {
      type: 'string',
      env: 'LARDER_FAULTS',
      placeholder: 'FILE',
      description:
        'Inject faults by the rules in this JSON file ({"rules": [...]}, as PUT /_larder/faults), also without an admin token.',
    },
    'allow-fault-header': {
      type: 'boolean',
      env: 'LARDER_ALLOW_FAULT_HEADER',
      description:
        'Honour the Larder-Fault request header (status=503, latency=800ms, reset, …) on each request.',
    },
    'no-live': {
      type: 'boolean',
      env: 'LARDER_NO_LIVE',
      description: 'Freeze the demo locations: no new activity as the clock passes midnight UTC.',
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
    const config = parseServeConfig(args);
    if (cluster.isWorker) {
      // A worker's IPC channel keeps it alive, so it must exit explicitly, also when it cannot start.
      const code = await serve({ ...config, demo: false }, io, { announce: false })
        .then(async (handle) => {
          process.send?.(READY);
          await untilSignal(handle.stop);
          return 0;
        })
        .catch((error: unknown) => {
          io.stderr(`larder: ${error instanceof Error ? error.message : String(error)}\n`);
          return 1;
        });
      process.exit(code);
    }
    if (config.workers === 1) {
      const handle = await serve(config, io);
      await untilSignal(handle.stop);
      return 0;
    }
    // Workers open their own connections; the primary keeps one to prepare the demo and print the banner.
    const store = await openStore(config.store);
    try {
      if (config.demo) await prepareDemo(store, systemClock, io.stdout);
      const resolved = await withDemoAdminToken(store, config);
      return await serveWithWorkers(config, io, (server) => announce(store, io, server, resolved));
    } finally {
      await store.close();
    }
  },
};
