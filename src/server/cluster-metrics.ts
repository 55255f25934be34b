import { AggregatorRegistry, Registry } from 'prom-client';
import type { Exposition } from './metrics-server.js';

/**
 * The scrape of `--workers N`: the primary asks each serving worker for its registry and merges them with
 * prom-client's aggregation (counters summed, and so on).
 *
 * Not prom-client's own `clusterMetrics()`: it asks every forked worker, and one still starting (a replacement for
 * a worker that died) cannot answer yet, so every scrape of its start-up failed after 5 s. Here only workers that
 * said they serve are asked; one still starting has counted nothing, so leaving it out changes no sum. A serving
 * worker that does not answer fails the scrape, as before: a sum that dipped would read as a counter reset.
 *
 * For the same reason a worker that dies (killed, crashed, replaced) keeps its counters and histograms in the sums,
 * at what it last answered: without them every sum would drop by its share, and Prometheus would take the drop for
 * a reset and see the whole count again as new (a spike in every rate). What it counted after its last scrape is
 * lost, but no scrape had shown it. Its gauges, readings of a live process, go with it.
 */

interface MetricsMessage {
  larder: 'metrics:ask' | 'metrics:part';
  id: number;
  /** A worker's `getMetricsAsJSON()`. */
  metrics?: object[];
  error?: string;
}

const isMetricsMessage = (message: unknown): message is MetricsMessage =>
  typeof message === 'object' &&
  message !== null &&
  ((message as { larder?: unknown }).larder === 'metrics:ask' ||
    (message as { larder?: unknown }).larder === 'metrics:part');

interface ProcessLike {
  send?: (message: unknown) => boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
}

/** A worker's side: answers the primary's asks with this registry's metrics. */
export const answerMetricsRequests = (registry: Registry, channel: ProcessLike): void => {
  channel.on('message', (message) => {
    if (!isMetricsMessage(message) || message.larder !== 'metrics:ask') return;
    registry.getMetricsAsJSON().then(
      (metrics) => channel.send?.({ larder: 'metrics:part', id: message.id, metrics }),
      (error: unknown) =>
        channel.send?.({
          larder: 'metrics:part',
          id: message.id,
          error: error instanceof Error ? error.message : String(error),
        }),
    );
  });
};

export interface WorkerLike {
  readonly id: number;
  /** As cluster's Worker: `callback` gets the error of a send that failed (a worker dying), else it is thrown. */
  send(message: unknown, callback: (error: Error | null) => void): unknown;
}

/** What the primary hears of its workers: `cluster.on('message')` and `cluster.on('exit')`. */
export interface ClusterEvents {
  onMessage(listener: (worker: WorkerLike, message: unknown) => void): void;
  onExit(listener: (worker: WorkerLike) => void): void;
}

/** A serving worker that has not answered by then fails the scrape (prom-client's bound too). */
const ANSWER_TIMEOUT_MS = 5000;

/** Dead workers' parts kept one by one before they are merged into one: bounds the memory a long run of restarts takes. */
const RETIRED_PARTS = 16;

/** What a dead worker leaves in the sums: counts (counters, histograms), not readings (gauges). */
const cumulative = (metrics: object[]): object[] =>
  metrics.filter((metric) => {
    const { type } = metric as { type?: unknown };
    return type === 'counter' || type === 'histogram';
  });

/** The primary's side. `serving()` lists the workers that are serving now (whose registries answer). */
export const clusterExposition = (
  serving: () => readonly WorkerLike[],
  events: ClusterEvents,
  timeoutMs = ANSWER_TIMEOUT_MS,
): Exposition => {
  let next = 0;
  /** Per scrape in progress: takes a worker's answer, or (no message) its exit. */
  const pending = new Map<number, (worker: WorkerLike, message?: MetricsMessage) => void>();
  /** Each live worker's counts as it last answered them. */
  const lastAnswered = new Map<number, object[]>();
  /**
   * Dead workers' counts: by worker, so that a scrape its answer reached before it died counts it once, and past
   * RETIRED_PARTS merged (worker undefined) while no scrape is in progress.
   */
  let retired: { worker?: number; metrics: object[] }[] = [];
  let merging = false;
  const mergeRetired = () => {
    if (merging || pending.size > 0 || retired.length <= RETIRED_PARTS) return;
    merging = true;
    const merged = retired.length;
    AggregatorRegistry.aggregate(retired.map((part) => part.metrics))
      .getMetricsAsJSON()
      .then(
        (metrics) => {
          // Parts retired meanwhile stay after the merged ones.
          retired = [{ metrics: metrics as object[] }, ...retired.slice(merged)];
        },
        () => {},
      )
      .finally(() => {
        merging = false;
      });
  };
  events.onMessage((worker, message) => {
    if (!isMetricsMessage(message) || message.larder !== 'metrics:part') return;
    if (message.metrics !== undefined) lastAnswered.set(worker.id, cumulative(message.metrics));
    pending.get(message.id)?.(worker, message);
  });
  events.onExit((worker) => {
    const last = lastAnswered.get(worker.id);
    lastAnswered.delete(worker.id);
    if (last !== undefined) retired.push({ worker: worker.id, metrics: last });
    // A worker that died after it was asked (killed, crashed) will never answer: the scrape goes on without it.
    for (const taken of [...pending.values()]) taken(worker);
  });
  return {
    contentType: Registry.PROMETHEUS_CONTENT_TYPE,
    render: () =>
      new Promise<string>((resolve, reject) => {
        const id = next++;
        const asked = serving();
        const waiting = new Set(asked.map((worker) => worker.id));
        const answered = new Set<number>();
        const parts: object[][] = [];
        const settle = (outcome: { text: string } | { error: Error }) => {
          clearTimeout(timer);
          pending.delete(id);
          mergeRetired();
          if ('text' in outcome) resolve(outcome.text);
          else reject(outcome.error);
        };
        const finish = () => {
          // A dead worker whose answer is in this scrape is counted by it, not again by what it left.
          for (const part of retired)
            if (part.worker === undefined || !answered.has(part.worker)) parts.push(part.metrics);
          AggregatorRegistry.aggregate(parts)
            .metrics()
            .then(
              (text) => settle({ text }),
              (error: Error) => settle({ error }),
            );
        };
        const timer = setTimeout(
          () =>
            settle({ error: new Error(`${waiting.size} worker(s) did not answer within ${timeoutMs} ms.`) }),
          timeoutMs,
        );
        pending.set(id, (worker, message) => {
          if (!waiting.delete(worker.id)) return;
          if (message?.error !== undefined) return settle({ error: new Error(message.error) });
          if (message !== undefined) {
            parts.push(message.metrics ?? []);
            answered.add(worker.id);
          }
          if (waiting.size === 0) finish();
        });
        if (waiting.size === 0) return finish();
        // One killed a moment ago is still listed until its exit is seen: its channel is closed already.
        for (const worker of asked)
          worker.send({ larder: 'metrics:ask', id } satisfies MetricsMessage, (error) => {
            if (error !== null) pending.get(id)?.(worker);
          });
      }),
  };
};
