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

/** The primary's side. `serving()` lists the workers that are serving now (whose registries answer). */
export const clusterExposition = (
  serving: () => readonly WorkerLike[],
  events: ClusterEvents,
  timeoutMs = ANSWER_TIMEOUT_MS,
): Exposition => {
  let next = 0;
  /** Per scrape in progress: takes a worker's answer, or (no message) its exit. */
  const pending = new Map<number, (worker: WorkerLike, message?: MetricsMessage) => void>();
  events.onMessage((worker, message) => {
    if (isMetricsMessage(message) && message.larder === 'metrics:part')
      pending.get(message.id)?.(worker, message);
  });
  // A worker that died after it was asked (killed, crashed) will never answer: the scrape goes on without it.
  events.onExit((worker) => {
    for (const taken of [...pending.values()]) taken(worker);
  });
  return {
    contentType: Registry.PROMETHEUS_CONTENT_TYPE,
    render: () =>
      new Promise<string>((resolve, reject) => {
        const id = next++;
        const asked = serving();
        const waiting = new Set(asked.map((worker) => worker.id));
        const parts: object[][] = [];
        const settle = (outcome: { text: string } | { error: Error }) => {
          clearTimeout(timer);
          pending.delete(id);
          if ('text' in outcome) resolve(outcome.text);
          else reject(outcome.error);
        };
        const finish = () => {
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
          if (message !== undefined) parts.push(message.metrics ?? []);
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
