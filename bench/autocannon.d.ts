// autocannon ships no types; this declares the slice of its programmatic API the bench uses.
declare module 'autocannon' {
  interface RequestOptions {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    setupRequest?: (request: RequestOptions) => RequestOptions;
  }
  interface Options extends RequestOptions {
    url: string;
    connections: number;
    /** Seconds of load, unless `amount` is given. */
    duration?: number;
    /** Stop after this many requests (instead of after `duration`). */
    amount?: number;
    /** Milliseconds between samples (default 1000); a run's stop is looked at only when it samples. */
    sampleInt?: number;
    requests?: RequestOptions[];
  }
  interface Histogram {
    average: number;
    p50: number;
    p99: number;
    total: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
  }
  /** A run in progress: awaitable for its result, and stoppable at its next sample. */
  interface Instance extends PromiseLike<Result> {
    stop(): void;
    once(event: 'response', listener: () => void): Instance;
  }
  function autocannon(options: Options): Instance;
  export = autocannon;
}
