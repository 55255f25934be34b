import cluster, { type Worker } from 'node:cluster';
import { relayThrottleFailures } from '../../auth/shared-throttle.js';
import { ensureSigningKey } from '../../auth/signing-keys.js';
import { serveClusterRateLimiter } from '../../middleware/rate-limit/rate-windows.js';
import { prepareDemo } from '../../sandbox/demo.js';
import { ACTIVE_TAKEN, serveClusterFaults } from '../../sandbox/fault-control.js';
import { createFaultEngine } from '../../sandbox/faults.js';
import { DEFAULT_JOURNAL_SIZE } from '../../sandbox/journal.js';
import { serveClusterJournal } from '../../sandbox/journal-view.js';
import { closeUnansweredHandoffs } from '../../server/cluster-handoffs.js';
import { createSupervisor, type SupervisorOutcome } from '../../server/cluster-supervisor.js';
import { localUrl } from '../../server/server.js';
import { systemClock } from '../../shared/clock.js';
import {
  DEFAULT_HOST,
  DEFAULT_SQLITE_CACHE_MB,
  DEFAULT_TOKEN_TTL_SECONDS,
  MAX_TOKEN_TTL_SECONDS,
  MIN_TOKEN_TTL_SECONDS,
} from '../../shared/limits.js';
import {
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_REQUEST_TIMEOUT_SECONDS,
  DEFAULT_SHUTDOWN_TIMEOUT_SECONDS,
  MAX_REQUEST_TIMEOUT_SECONDS,
  MAX_SHUTDOWN_DELAY_SECONDS,
  MAX_SHUTDOWN_TIMEOUT_SECONDS,
} from '../../shared/server-limits.js';
import { openStore } from '../../storage/open-store.js';
import { type Command, STORE_OPTIONS } from '../command.js';
import { checkPortFree } from '../port-check.js';
import {
  badPortWarnings,
  logKeyProtection,
  StartStopped,
  serve,
  startClusterMetrics,
  withDemoAdminToken,
} from '../serve.js';
import { parseServeConfig, type ServeConfig } from '../serve-config.js';
import { createServeOutput, type ServeOutput } from '../serve-output.js';
import { loadTls, shareWithWorkers } from '../tls.js';

/**
 * A crash is logged as JSON like every other line (Node would print a bare stack trace), then the process exits 1
 * as it would have: the supervisor replaces a crashed worker.
 */
const logCrashes = (output: ServeOutput) => {
  const crash = (kind: string) => (error: unknown) => {
    output.logger.error(`crashed: ${kind}`, { error });
    output.logger.flush?.();
    process.exit(1);
  };
  process.once('uncaughtException', crash('uncaught exception'));
  process.once('unhandledRejection', crash('unhandled rejection'));
};

/** How long a stopping worker waits for its last log lines to be written before it exits. */
const WORKER_LOG_SETTLE_MS = 2000;

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * SIGINT/SIGTERM handling, installed before serve writes anything: until then a signal takes its default action,
 * which ends the process mid-start (its demo half-made, its banner half-written). The first signal aborts
 * `requested` (saying so, when `say` is given), which a start still in progress heeds at its next step, and runs the
 * stop that `whenStopping` hands over, at once if it comes later; `whenStopping` resolves once that stop is done.
 * A second signal ends the process at once (a second Ctrl-C), unless `ignoreRepeats`: a worker gets Ctrl-C's SIGINT
 * (or systemd's SIGTERM, sent to every process of the service) and then the primary's SIGTERM, and must finish its
 * requests in flight all the same; the primary bounds its stop (SIGKILL), and a worker whose primary is gone exits.
 */
const stopSignals = (say?: (line: string) => void, ignoreRepeats = false) => {
  const requested = new AbortController();
  let stop: (() => Promise<void>) | undefined;
  let stopped!: () => void;
  const done = new Promise<void>((resolve) => {
    stopped = resolve;
  });
  const run = () => stop?.().then(stopped, stopped);
  const close = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  function onSignal(signal: NodeJS.Signals) {
    if (requested.signal.aborted) return;
    if (!ignoreRepeats) close();
    say?.(`larder: ${signal}: stopping; requests in flight may finish first.\n`);
    requested.abort();
    void run();
  }
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    requested: requested.signal,
    whenStopping: (next: () => Promise<void>): Promise<void> => {
      stop = next;
      if (requested.signal.aborted) void run();
      return done;
    },
    /** Once serve is done: a command run in process (tests) leaves no handler behind. */
    close,
  };
};

type StopSignals = ReturnType<typeof stopSignals>;

/** What a worker sends the primary once its app is built and answering (not merely bound). */
const READY = 'larder:ready';
/** How long a change of the fault rules waits for every worker to take it up before answering anyway. */
const BROADCAST_TIMEOUT_MS = 1000;

/**
 * The primary of `--workers N`: the supervisor keeps N workers serving (src/server/cluster-supervisor.ts), and
 * the banner is printed once every worker is ready, so nothing the banner invites meets a starting worker.
 */
const serveWithWorkers = async (
  config: ServeConfig,
  output: ServeOutput,
  signals: StopSignals,
  onReady: (server: { url: string; publicUrl: string; metricsUrl?: string }) => Promise<void>,
): Promise<SupervisorOutcome> => {
  // A message to a worker that is dying (killed, crashed), sent before its exit is seen, fails: Node emits 'error'
  // on its Worker, which unhandled ended the primary and so every worker. Its exit is handled by the supervisor.
  cluster.on('fork', (worker) => {
    worker.on('error', (error: Error) =>
      output.logger.debug('a message to a worker was not delivered (it is exiting)', {
        worker: worker.process.pid,
        error: error.message,
      }),
    );
    closeUnansweredHandoffs(worker.process);
  });
  // Workers that said they serve and have not exited since: those a scrape asks.
  const serving = new Map<number, Worker>();
  cluster.on('exit', (worker) => serving.delete(worker.id));
  const metrics = await startClusterMetrics(
    config,
    () => [...serving.values()],
    {
      onMessage: (listener) => cluster.on('message', listener),
      onExit: (listener) => cluster.on('exit', listener),
    },
    output.logger,
  );
  let port: number | undefined;
  const ready = new Set<number>();
  let announced = false;
  const announceOnce = () => {
    // Once a stop was asked for, no banner invites anyone to a server that is going.
    if (announced || signals.requested.aborted || port === undefined || ready.size < config.workers) return;
    announced = true;
    const url = localUrl(config.host, port, config.tls !== undefined);
    void onReady({
      url,
      publicUrl: config.publicUrl ?? url,
      ...(metrics === undefined ? {} : { metricsUrl: metrics.url }),
    });
  };
  cluster.on('message', (worker, message) => {
    if (message !== READY) return;
    ready.add(worker.id);
    serving.set(worker.id, worker);
    announceOnce();
  });
  const workerArgs = cluster.settings.args ?? process.argv.slice(2);
  const supervisor = createSupervisor({
    cluster,
    workers: config.workers,
    // Workers finish their requests in flight within --shutdown-timeout; the margin covers closing the store.
    killAfterMs: config.shutdownDelayMs + config.shutdownTimeoutMs + 5000,
    log: (level, line) => output.logger[level](line),
    onListening: (address) => {
      port = address.port;
      announceOnce();
    },
    // With --port 0, a worker started while others serve asks for port 0 as they did, and so shares their
    // socket; asking for the bound port would make the primary bind it again, which fails while it is held. Only
    // one started after every other died is told the port, or it would get a new random one (the last --port
    // given wins).
    beforeFork: (listening) => {
      if (config.port !== 0 || port === undefined) return;
      cluster.setupPrimary({ args: listening > 0 ? workerArgs : [...workerArgs, '--port', String(port)] });
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
    const waiting = new Set<number>();
    for (const worker of Object.values(cluster.workers ?? {}))
      if (worker?.isConnected()) {
        waiting.add(worker.id);
        worker.send(message);
      }
    // Every worker's word, or a bound: a worker dying meanwhile must not hold the admin API's answer.
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        cluster.off('message', taken);
        resolve();
      };
      const taken = (worker: Worker, reply: unknown) => {
        const { larder, seq } = (reply ?? {}) as { larder?: unknown; seq?: unknown };
        if (larder === ACTIVE_TAKEN && seq === message.seq && waiting.delete(worker.id) && waiting.size === 0)
          done();
      };
      const timer = setTimeout(done, BROADCAST_TIMEOUT_MS);
      if (waiting.size === 0) done();
      else cluster.on('message', taken);
    });
  });
  // The failed-login limit is the instance's: each worker's failures reach the others.
  relayThrottleFailures(
    () => Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined),
    (listener) => cluster.on('message', listener),
  );
  supervisor.start();
  void signals.whenStopping(async () => {
    await supervisor.stop();
  });
  const outcome = await supervisor.done;
  await metrics?.stop();
  return outcome;
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
      description:
        "Port to bind (0: any free port). One that browsers and fetch refuse (the Fetch standard's bad ports: 6000, 6665-6669, 10080, …) is warned about at start.",
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
      description: `Access token lifetime, ${MIN_TOKEN_TTL_SECONDS} to ${MAX_TOKEN_TTL_SECONDS} (1 s to 1 year).`,
    },
    workers: {
      type: 'string',
      env: 'LARDER_WORKERS',
      default: '1',
      placeholder: 'N',
      description: 'Worker processes sharing the port (node:cluster); "auto" = one per core.',
    },
    'trust-proxy': {
      type: 'string',
      env: 'LARDER_TRUST_PROXY',
      placeholder: 'HOPS|CIDR,…',
      description:
        'Proxies trusted to name the client address in X-Forwarded-For: a hop count (1 = the nearest proxy) or their addresses/CIDR networks (10.0.0.0/8,::1). Default: none.',
    },
    'log-level': {
      type: 'string',
      env: 'LARDER_LOG_LEVEL',
      default: 'info',
      placeholder: 'LEVEL',
      description: 'debug (adds health probes), info (one line per request), warn, error or silent.',
    },
    'log-format': {
      type: 'string',
      env: 'LARDER_LOG_FORMAT',
      default: 'json',
      placeholder: 'FORMAT',
      description:
        'json (every line a JSON object; the banner too, unless stdout is a terminal) or pretty (human-readable).',
    },
    'metrics-port': {
      type: 'string',
      env: 'LARDER_METRICS_PORT',
      placeholder: 'PORT',
      description:
        'Serve Prometheus metrics at GET /metrics on this port of --host (its own listener; all workers). Default: off.',
    },
    'tls-cert': {
      type: 'string',
      env: 'LARDER_TLS_CERT',
      placeholder: 'FILE',
      description: 'Serve HTTPS with this PEM certificate (chain); needs --tls-key.',
    },
    'tls-key': {
      type: 'string',
      env: 'LARDER_TLS_KEY',
      placeholder: 'FILE',
      description: 'The PEM private key of --tls-cert.',
    },
    tls: {
      type: 'string',
      env: 'LARDER_TLS',
      placeholder: 'self-signed',
      description:
        'Serve HTTPS with a development certificate made at start and printed (not for production).',
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
    'sqlite-cache-mb': {
      type: 'string',
      env: 'LARDER_SQLITE_CACHE_MB',
      default: String(DEFAULT_SQLITE_CACHE_MB),
      placeholder: 'MIB',
      description:
        'SQLite: the page cache of each connection, per worker process, in MiB; it fills only as pages are read. Size it to the pages reads keep coming back to: a cache smaller than those re-reads them from the OS on every request.',
    },
    'admin-token': {
      type: 'string',
      env: 'LARDER_ADMIN_TOKEN',
      placeholder: 'TOKEN',
      description:
        'Turn the admin API (/_larder/: clock, fixtures, journal, report) on, locked by this token (16+ characters); the environment variable keeps it out of the process list. A demo database has its own, printed at start.',
    },
    'journal-size': {
      type: 'string',
      env: 'LARDER_JOURNAL_SIZE',
      default: String(DEFAULT_JOURNAL_SIZE),
      placeholder: 'N',
      description: 'Requests the journal keeps (with the admin API on); 0 turns the journal off.',
    },
    'login-throttle': {
      type: 'string',
      env: 'LARDER_LOGIN_THROTTLE',
      default: '10/min',
      placeholder: 'N/WINDOW',
      description:
        'Failed logins allowed per client id and address before 429 (10/min, 5/30s, 100/h), or off. Correct credentials from elsewhere are never refused.',
    },
    cors: {
      type: 'string',
      env: 'LARDER_CORS',
      placeholder: 'ORIGIN[,ORIGIN]',
      description:
        'Let browser scripts on these origins (or *) call the retail and auth endpoints; never the admin API. Off by default.',
    },
    'rate-limit': {
      type: 'string',
      env: 'LARDER_RATE_LIMIT',
      default: 'off',
      placeholder: 'LIMITS',
      description:
        'Rate limits as the platform applies them: platform (20/s and 10000/15m), limits such as 5/s,100/15m, or off. Retail counts per client and location, login and token per address; 429 with Retry-After past them.',
    },
    'rate-limit-headers': {
      type: 'string',
      env: 'LARDER_RATE_LIMIT_HEADERS',
      default: 'platform',
      placeholder: 'STYLE',
      description:
        "Which fields carry the limit state: platform (X-RateLimit-Limit, -Remaining, -Reset as a Unix time: the platform's own), ietf (RateLimit and RateLimit-Policy), or both.",
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
    'request-timeout': {
      type: 'string',
      env: 'LARDER_REQUEST_TIMEOUT',
      default: String(DEFAULT_REQUEST_TIMEOUT_SECONDS),
      placeholder: 'SECONDS',
      description: `A request unanswered after this gets 503 with canRetry (a stuck database), 1 to ${MAX_REQUEST_TIMEOUT_SECONDS}.`,
    },
    'shutdown-timeout': {
      type: 'string',
      env: 'LARDER_SHUTDOWN_TIMEOUT',
      default: String(DEFAULT_SHUTDOWN_TIMEOUT_SECONDS),
      placeholder: 'SECONDS',
      description: `On SIGTERM/SIGINT, how long requests in flight may finish before their connections are cut, 0 to ${MAX_SHUTDOWN_TIMEOUT_SECONDS}.`,
    },
    'shutdown-delay': {
      type: 'string',
      env: 'LARDER_SHUTDOWN_DELAY',
      default: '0',
      placeholder: 'SECONDS',
      description: `On SIGTERM/SIGINT, how long to go on serving with /readyz answering 503 before the listener closes, so a balancer polling it stops sending first; 0 to ${MAX_SHUTDOWN_DELAY_SECONDS}.`,
    },
    'max-connections': {
      type: 'string',
      env: 'LARDER_MAX_CONNECTIONS',
      default: String(DEFAULT_MAX_CONNECTIONS),
      placeholder: 'N',
      description:
        'Open connections at once for the whole instance (split between --workers); more are closed on arrival, and warned of (a line at most every 10 s).',
    },
    'no-demo': {
      type: 'boolean',
      env: 'LARDER_NO_DEMO',
      description:
        'Start empty: no demo data or demo client on a new database, and no admin API unless --admin-token is given.',
    },
  },
  notes:
    'On a new SQLite database (and without --no-demo) Larder seeds three demo locations with ~6 months of data,\n' +
    'creates a demo client granted all of them, and prints its credentials and a curl to try. A new PostgreSQL\n' +
    'database gets no demo: give --admin-token for the sandbox controls, and load data with seed or import.',
  run: async (args, io) => {
    const config = parseServeConfig(args);
    const output = createServeOutput(config, io);
    logCrashes(output);
    const say = (line: string) => output.logger.info(line.trim());
    if (cluster.isWorker) {
      const signals = stopSignals(undefined, true);
      // A worker's IPC channel keeps it alive, so it must exit explicitly, also when it cannot start.
      const code = await serve(config, io, { announce: false, signal: signals.requested }, output)
        .then(async (handle) => {
          if (!signals.requested.aborted) process.send?.(READY);
          await signals.whenStopping(handle.stop);
          return 0;
        })
        .catch((error: unknown) => {
          if (error instanceof StartStopped) return 0;
          output.logger.error(`cannot start: ${errorText(error)}`);
          return 1;
        });
      // Not flush(): with a line being written it would write the later ones first. The worker serves nothing
      // now, so it can wait for its lines (bounded: a log reader that stopped reading must not hold the exit).
      await output.logger.settle?.(WORKER_LOG_SETTLE_MS);
      process.exit(code);
    }
    const signals = stopSignals(say);
    try {
      await checkPortFree(config.host, config.port);
      if (config.metricsPort !== undefined)
        await checkPortFree(config.host, config.metricsPort, '--metrics-port');
      if (config.workers === 1) {
        const handle = await serve(config, io, { signal: signals.requested }, output);
        await signals.whenStopping(handle.stop);
        say('larder: stopped.');
        return 0;
      }
      // Workers open their own connections; the primary keeps one to prepare the demo and print the banner.
      const tls = await loadTls(config, io.env);
      if (tls !== undefined) shareWithWorkers(tls.material);
      const store = await openStore(config.store);
      let outcome: SupervisorOutcome;
      try {
        for (const warning of badPortWarnings(config)) output.logger.warn(warning);
        await logKeyProtection(output.logger, config, store);
        await prepareDemo(store, systemClock, output.note, config.demo);
        // Made here, once: workers starting together on a new database would each make one.
        await ensureSigningKey(store, systemClock);
        const resolved = await withDemoAdminToken(store, config);
        // A stop asked for while the demo was made: no worker is started only to be stopped.
        if (signals.requested.aborted) throw new StartStopped();
        outcome = await serveWithWorkers(config, output, signals, (server) =>
          output.banner(store, {
            ...server,
            workers: config.workers,
            ...(resolved.adminToken === undefined ? {} : { adminToken: resolved.adminToken }),
            ...(tls?.generated === true ? { certificate: tls.material.cert } : {}),
          }),
        );
      } finally {
        await store.close();
      }
      // The last line, once every worker has exited and the store is closed, as a lone serve's; with the reason
      // when the cluster stopped itself (the supervisor said it as it happened, lines before).
      if (outcome.exitCode === 0) say('larder: stopped.');
      else output.logger.error(`larder: stopped (exit code ${outcome.exitCode}): ${outcome.reason}`);
      return outcome.exitCode;
    } catch (error) {
      if (error instanceof StartStopped) {
        say('larder: stopped.');
        return 0;
      }
      // Every line serve writes is a log line: a failure to start too (the reason names the host, path or port).
      output.logger.error(`cannot start: ${errorText(error)}`);
      return 1;
    } finally {
      // No synchronous flush: with a line still being written it would write the later ones first (sonic-boom), so
      // "larder: stopped." could come before "stopped". Node exits once every line is written, in order.
      signals.close();
    }
  },
};
