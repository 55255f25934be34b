import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Socket backpressure for pipelined requests. Node's HTTP server stops reading a connection whose answers back up
 * only when a request arrives while output is already queued; our handlers answer asynchronously, so a burst of
 * pipelined requests is parsed, and would all be run, before the first answer exists. Each connection here runs
 * at most MAX_IN_FLIGHT requests at once, and starts the next only when its socket has drained: a client that
 * never reads costs a few answers in socket buffers, and Node's own check then stops reading the connection.
 * Written by hand: no library sits between Node's server and the Hono adaptor to do this.
 */

/** Requests of one connection run at once (HTTP/1.1 answers them in order anyway). */
export const MAX_IN_FLIGHT = 4;

interface ConnectionState {
  inFlight: number;
  waiting: (() => void)[];
}

const states = new WeakMap<Socket, ConnectionState>();

const stateOf = (socket: Socket): ConnectionState => {
  let state = states.get(socket);
  if (state === undefined) {
    state = { inFlight: 0, waiting: [] };
    states.set(socket, state);
    socket.once('close', () => {
      // A closed connection's queued requests are let through: they answer into nothing, at once.
      for (const wake of state?.waiting.splice(0) ?? []) wake();
    });
  }
  return state;
};

const wakeNext = (socket: Socket, state: ConnectionState): void => {
  if (state.waiting.length === 0 || state.inFlight >= MAX_IN_FLIGHT) return;
  if (socket.writableNeedDrain && !socket.destroyed) {
    socket.once('drain', () => wakeNext(socket, state));
    return;
  }
  state.waiting.shift()?.();
};

/** Resolves when this request may run; its response's end frees the slot. */
export const admit = (incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> | undefined => {
  const socket = incoming.socket;
  const state = stateOf(socket);
  const start = () => {
    state.inFlight++;
    outgoing.once('close', () => {
      state.inFlight--;
      wakeNext(socket, state);
    });
  };
  if (state.waiting.length === 0 && state.inFlight < MAX_IN_FLIGHT && !socket.writableNeedDrain) {
    start();
    return undefined;
  }
  return new Promise<void>((resolve) => {
    state.waiting.push(() => {
      start();
      resolve();
    });
  });
};
