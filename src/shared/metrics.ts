import { type Aggregator, Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** Seconds; from a fast read by id (~0.1 ms) to a request that hit the 10 s deadline. */
const REQUEST_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const QUERY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5];

export interface PoolState {
  total: number;
  idle: number;
  waiting: number;
}

/**
 * Everything Larder measures, in one prom-client registry per app (tests build many apps in one process, and
 * prom-client's global registry refuses a metric registered twice). Names are the README's "Metrics" table.
 */
export interface Metrics {
  readonly registry: Registry;
  /** Answered requests by operation (the API's operation id, else the route pattern), method and status. */
  readonly requests: Counter<'operation' | 'method' | 'status'>;
  readonly requestDuration: Histogram<'operation' | 'status'>;
  /** Access tokens handed out by login and the OAuth token endpoint. */
  readonly tokensIssued: Counter<'operation'>;
  readonly tokenFailures: Counter<'operation' | 'status'>;
  /**
   * Requests refused with 429, by error code (42901: the failed-login throttle). A rate limit answering 429
   * through the error edge is counted here with its own code, with nothing to wire.
   */
  readonly refusals: Counter<'code'>;
  /** Store calls by role (records, locations, auth) and method; outcome ok or error. */
  readonly storeQueryDuration: Histogram<'role' | 'method' | 'outcome'>;
  readonly imports: Counter<'outcome'>;
  readonly importedRecords: Counter<'kind'>;
  /** Connections the public port closed on arrival, over --max-connections (the metrics listener's are not counted). */
  readonly connectionsRefused: Counter;
  /** Reports the PostgreSQL pool (total, idle, waiting clients) at each scrape; call once. */
  watchPool(read: () => PoolState): void;
  /** Reports the public port's open connections at each scrape; call once. */
  watchConnections(read: () => number): void;
}

export const createMetrics = (options: { processMetrics?: boolean } = {}): Metrics => {
  const registry = new Registry();
  // Event-loop delay (nodejs_eventloop_lag_*), heap, GC, CPU, file descriptors.
  if (options.processMetrics !== false) {
    collectDefaultMetrics({ register: registry });
    // A per-process limit: summed over --workers it would claim N times what any one process may open. The
    // field is prom-client's own (set from a metric's options), missing only from its typings.
    const maxFds = registry.getSingleMetric('process_max_fds') as { aggregator?: Aggregator } | undefined;
    if (maxFds !== undefined) maxFds.aggregator = 'max';
  }
  const registers = [registry];
  const readGauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read());
      },
    });
  return {
    registry,
    requests: new Counter({
      name: 'larder_http_requests_total',
      help: 'Answered HTTP requests.',
      labelNames: ['operation', 'method', 'status'],
      registers,
    }),
    requestDuration: new Histogram({
      name: 'larder_http_request_duration_seconds',
      help: 'Time from the request reaching Larder to its answer.',
      labelNames: ['operation', 'status'],
      buckets: REQUEST_BUCKETS,
      registers,
    }),
    tokensIssued: new Counter({
      name: 'larder_tokens_issued_total',
      help: 'Access tokens handed out.',
      labelNames: ['operation'],
      registers,
    }),
    tokenFailures: new Counter({
      name: 'larder_token_failures_total',
      help: 'Login and token requests that got no token.',
      labelNames: ['operation', 'status'],
      registers,
    }),
    refusals: new Counter({
      name: 'larder_throttle_refusals_total',
      help: 'Requests refused with 429 (throttle or rate limit), by error code.',
      labelNames: ['code'],
      registers,
    }),
    storeQueryDuration: new Histogram({
      name: 'larder_store_query_duration_seconds',
      help: 'Time of each store call.',
      labelNames: ['role', 'method', 'outcome'],
      buckets: QUERY_BUCKETS,
      registers,
    }),
    imports: new Counter({
      name: 'larder_imports_total',
      help: 'Imports (fixtures through the admin API) by outcome.',
      labelNames: ['outcome'],
      registers,
    }),
    importedRecords: new Counter({
      name: 'larder_imported_records_total',
      help: 'Records imported, by kind.',
      labelNames: ['kind'],
      registers,
    }),
    connectionsRefused: new Counter({
      name: 'larder_http_connections_refused_total',
      help: 'Connections closed on arrival because --max-connections were open.',
      registers,
    }),
    // Read at each scrape, so that an accepted connection costs no metric update.
    watchConnections: (read) => {
      readGauge('larder_http_connections_open', 'Connections open on the public port.', read);
    },
    // Registered only for a store with a pool: an embedded store shows no pool series rather than zeros.
    watchPool: (read) => {
      readGauge(
        'larder_store_pool_connections',
        'PostgreSQL connections open in the pool.',
        () => read().total,
      );
      readGauge(
        'larder_store_pool_idle_connections',
        'PostgreSQL connections idle in the pool.',
        () => read().idle,
      );
      readGauge(
        'larder_store_pool_waiting_requests',
        'Queries waiting for a pool connection.',
        () => read().waiting,
      );
    },
  };
};
