/**
 * Node's cluster primary (round-robin scheduling, its default outside Windows) accepts each connection and hands
 * it to a worker in an IPC message, keeping its own copy of the socket until the worker answers that it took it
 * (node/lib/internal/cluster/round_robin_handle.js). A worker that dies before answering never does, and the
 * primary then holds that connection open and unanswered for as long as the client waits (Node does not even
 * report the worker's channel closed then: the socket's own delivery is never confirmed). Here the primary closes,
 * once a worker has exited and all it wrote has been read, each connection it handed that worker without an
 * answer: the client sees it closed at once, like the other connections of the dead worker.
 *
 * This reads Node's internal cluster messages (`{cmd: 'NODE_CLUSTER', act: 'newconn', seq}` with the socket, and
 * the worker's `{cmd: 'NODE_CLUSTER', ack: seq}`), unchanged since Node 0.12; test/cli/workers-drain.test.ts
 * fails if they change.
 */

/** A socket handle as the primary holds it (a libuv TCP handle). */
interface Closable {
  close(): void;
}

/** What this uses of a worker's `process` (a `ChildProcess` with an IPC channel). */
export interface WorkerChannel {
  send(message: unknown, handle?: unknown, ...rest: unknown[]): boolean;
  on(event: 'internalMessage', listener: (message: unknown) => void): unknown;
  once(event: 'close', listener: () => void): unknown;
}

interface ClusterMessage {
  cmd?: unknown;
  act?: unknown;
  seq?: unknown;
  ack?: unknown;
}

const clusterMessage = (message: unknown): ClusterMessage | undefined =>
  typeof message === 'object' && message !== null && (message as ClusterMessage).cmd === 'NODE_CLUSTER'
    ? (message as ClusterMessage)
    : undefined;

const isClosable = (handle: unknown): handle is Closable =>
  typeof handle === 'object' && handle !== null && typeof (handle as Closable).close === 'function';

/** Watches the connections the primary hands `channel`'s worker; call as the worker is forked. */
export const closeUnansweredHandoffs = (channel: WorkerChannel): void => {
  const unanswered = new Map<number, Closable>();
  const send = channel.send;
  channel.send = function (this: WorkerChannel, message: unknown, handle?: unknown, ...rest: unknown[]) {
    const sent = clusterMessage(message);
    if (sent?.act === 'newconn' && typeof sent.seq === 'number' && isClosable(handle))
      unanswered.set(sent.seq, handle);
    return send.call(this, message, handle, ...rest);
  };
  channel.on('internalMessage', (message) => {
    const ack = clusterMessage(message)?.ack;
    if (typeof ack === 'number') unanswered.delete(ack);
  });
  // 'close': the worker has exited and its channel reached its end, so every answer it wrote has been read.
  channel.once('close', () => {
    for (const handle of unanswered.values()) handle.close();
    unanswered.clear();
  });
};
