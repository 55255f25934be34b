import { createRequire } from 'node:module';
import autocannon from 'autocannon';

/*
 * autocannon 8 decodes every response body into a string as it arrives (`body += chunk` in
 * lib/pipelinedRequestsQueue.js), for its expectBody and onResponse options, which the bench does not use, and it
 * has no option to skip it. On a search page that decoding was the load generator's limit, not the server's: a raw
 * node:http server sending a 363 KB order page answered 720–890 requests a second with it and 5,300–6,200 without,
 * and a 61 KB non-ASCII inventory page 3,900–4,300 against 13,500–16,000 (2026-12-01,
 * bench/results/2026-12-01-load-generator-bodies). Bytes are still counted (addByteCount) and statuses judged.
 */
const PipelinedRequestsQueue = createRequire(import.meta.url)('autocannon/lib/pipelinedRequestsQueue.js') as {
  prototype: { addBody(data: Buffer): void };
};
PipelinedRequestsQueue.prototype.addBody = () => {};

/** One load shape: the same requests are sent to every target, so only the server differs. */
export interface Load {
  method: 'GET' | 'POST';
  /** Paths (with query) cycled in order across all connections: ids rotate, no single row is flattered. */
  paths: readonly string[];
  headers: Record<string, string>;
  body?: string;
}

export interface Measurement {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** Non-2xx answers plus socket errors and timeouts: a run with any of them is not a valid figure. */
  failures: number;
}

/** The longest a sub-second run waits for its first answer: past it, autocannon's own stop ends the run. */
const UNTIL_ANSWERED_CAP_S = 60;

export const measure = async (
  baseUrl: string,
  load: Load,
  /** Load for `duration` seconds, or until `amount` requests have been answered. */
  options: { connections: number } & ({ duration: number } | { amount: number }),
): Promise<Measurement> => {
  let next = 0;
  const { paths } = load;
  // autocannon looks at its stop only when it samples, every second by default, so a run shorter than a second
  // (the smoke's 0.3 s) took a whole one, and a run of `amount` requests (the cost runs) idled up to a second past
  // its last answer. Sampled every 100 ms, each ends within 100 ms; the rate per sample is scaled to one per second
  // below. Runs of a second or more keep the default, so the full bench's figures are sampled as before.
  const short = 'amount' in options || options.duration < 1;
  const sampleInt = short ? 100 : 1000;
  // A sub-second run on a loaded machine could end before its first answer (a CI run read 0 requests a second),
  // so it is stopped by hand: at its duration once something has answered, or else at its first answer.
  const untilAnswered = 'duration' in options && options.duration < 1 ? options.duration : undefined;
  const run = autocannon({
    url: baseUrl,
    ...options,
    ...(untilAnswered === undefined ? {} : { duration: UNTIL_ANSWERED_CAP_S }),
    sampleInt,
    method: load.method,
    headers: load.headers,
    ...(load.body === undefined ? {} : { body: load.body }),
    requests: [
      {
        setupRequest: (request) => {
          request.path = paths[next]!;
          next = next + 1 === paths.length ? 0 : next + 1;
          return request;
        },
      },
    ],
  });
  if (untilAnswered !== undefined) {
    let answered = false;
    let due = false;
    run.once('response', () => {
      answered = true;
      if (due) run.stop();
    });
    setTimeout(() => {
      due = true;
      if (answered) run.stop();
    }, untilAnswered * 1000);
  }
  const result = await run;
  return {
    requestsPerSecond: (result.requests.average * 1000) / sampleInt,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
  };
};
