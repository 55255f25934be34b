import type { FailureThrottle } from './failure-throttle.js';

/**
 * Under `--workers N` the failed-login limit holds for the instance, not per worker: each worker tells the primary
 * of its failures and the primary passes them on to every other worker, which counts them as its own. A worker
 * refuses from its local count, so the check stays synchronous; a failure reaches the others within an IPC hop.
 */

const MESSAGE = 'throttle:failures';
/** A sandbox reset in one worker forgets the failures every worker counted. */
const CLEAR = 'throttle:clear';

interface FailuresMessage {
  larder: typeof MESSAGE;
  keys: string[];
}

interface ClearMessage {
  larder: typeof CLEAR;
}

const isFailures = (message: unknown): message is FailuresMessage =>
  typeof message === 'object' &&
  message !== null &&
  (message as { larder?: unknown }).larder === MESSAGE &&
  Array.isArray((message as { keys?: unknown }).keys) &&
  (message as { keys: unknown[] }).keys.every((key) => typeof key === 'string');

const isClear = (message: unknown): message is ClearMessage =>
  typeof message === 'object' && message !== null && (message as { larder?: unknown }).larder === CLEAR;

/** A worker's side of its IPC channel (`process` in a cluster worker). */
export interface WorkerChannel {
  send?: (message: unknown) => boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
}

/** The worker's throttle: its own failures are shared, the others' are counted. */
export const sharedThrottle = (local: FailureThrottle, channel: WorkerChannel): FailureThrottle => {
  channel.on('message', (message) => {
    if (isFailures(message)) local.recordFailure(message.keys);
    else if (isClear(message)) local.clear();
  });
  return {
    ...local,
    recordFailure: (keys) => {
      local.recordFailure(keys);
      channel.send?.({ larder: MESSAGE, keys: [...keys] } satisfies FailuresMessage);
    },
    clear: () => {
      local.clear();
      channel.send?.({ larder: CLEAR } satisfies ClearMessage);
    },
  };
};

/** What the primary uses of a worker. */
export interface PeerWorker {
  readonly id: number;
  send(message: unknown): boolean;
  isDead(): boolean;
}

/** The primary's side: every failure (and every clear) a worker reports goes to every other live worker. */
export const relayThrottleFailures = (
  workers: () => readonly PeerWorker[],
  onMessage: (listener: (worker: PeerWorker, message: unknown) => void) => void,
): void => {
  onMessage((from, message) => {
    if (!isFailures(message) && !isClear(message)) return;
    for (const worker of workers()) if (worker.id !== from.id && !worker.isDead()) worker.send(message);
  });
};
