import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../shared/logger.js';
import type { Metrics } from '../shared/metrics.js';
import type { Schedule } from './cluster-supervisor.js';

/** After the first refusal is logged, at most one line per this: a flood of connections must not flood the log. */
export const REFUSAL_LOG_INTERVAL_MS = 10_000;

/** Never what keeps a process alive: the server's close cancels it anyway. */
const unrefSchedule: Schedule = (task, ms) => {
  const timer = setTimeout(task, ms).unref();
  return () => clearTimeout(timer);
};

export interface CapReport {
  logger: Logger;
  /** `public` (--max-connections) or `metrics` (--metrics-port, fixed cap); named in the log line. */
  listener: 'public' | 'metrics';
  /** A cluster worker: its cap is its share of --max-connections. */
  clusterWorker?: boolean;
  /** Refusals counted and open connections measured (the public port's). */
  metrics?: Metrics;
  schedule?: Schedule;
}

/** Why, and what to do: the flag to raise, or (the metrics listener's fixed cap) what holds the connections. */
const describeCap = (report: CapReport, max: number): string =>
  report.listener === 'metrics'
    ? `${max} connections are open, the most it holds (are scrapers or clients holding connections open?)`
    : report.clusterWorker === true
      ? `${max} connections are open on this worker, its share of the --max-connections cap (raise it to allow more)`
      : `${max} connections are open, the --max-connections cap (raise it to allow more)`;

/**
 * Warns of refusals: the first at once, then how many more every REFUSAL_LOG_INTERVAL_MS while they go on; a
 * quiet interval ends the watch, so the next refusal is told at once again.
 */
const refusalLog = (report: CapReport, max: number) => {
  const { logger, listener } = report;
  const who = listener === 'metrics' ? 'the metrics listener refused' : 'refused';
  const schedule = report.schedule ?? unrefSchedule;
  const seconds = REFUSAL_LOG_INTERVAL_MS / 1000;
  let unreported = 0;
  let cancel: (() => void) | undefined;
  const tellUnreported = () => {
    logger.warn(
      `${who} ${unreported} more connection${unreported === 1 ? '' : 's'} in the last ${seconds} s: ${describeCap(report, max)}`,
      { listener, refused: unreported, maxConnections: max },
    );
    unreported = 0;
  };
  const summarize = () => {
    cancel = undefined;
    if (unreported === 0) return;
    tellUnreported();
    cancel = schedule(summarize, REFUSAL_LOG_INTERVAL_MS);
  };
  return {
    refused: () => {
      if (cancel !== undefined) {
        unreported++;
        return;
      }
      logger.warn(`${who} a connection: ${describeCap(report, max)}`, {
        listener,
        refused: 1,
        maxConnections: max,
      });
      cancel = schedule(summarize, REFUSAL_LOG_INTERVAL_MS);
    },
    /** The listener closed: what is still unreported is told now. */
    close: () => {
      cancel?.();
      cancel = undefined;
      if (unreported > 0) tellUnreported();
    },
  };
};

/**
 * Closes connections over `max` on arrival. Not `server.maxConnections`: in a cluster worker Node answers the
 * primary "not accepted" instead, and the primary hands the connection to a worker again, forever, so the
 * connection is held open and unanswered and no bound holds. An accepted connection costs a count and nothing more;
 * the open-connections gauge reads the count at each scrape.
 */
export const capConnections = (server: Server, max: number, report?: CapReport): void => {
  let open = 0;
  const log = report === undefined ? undefined : refusalLog(report, max);
  const refusals = report?.metrics?.connectionsRefused;
  report?.metrics?.watchConnections(() => open);
  if (log !== undefined) server.once('close', log.close);
  server.on('connection', (socket: Socket) => {
    if (open >= max) {
      socket.destroy();
      refusals?.inc();
      log?.refused();
      return;
    }
    open++;
    socket.once('close', () => {
      open--;
    });
  });
};
