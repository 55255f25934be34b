import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Socket backpressure for pipelined requests. Node's HTTP server stops reading a connection whose answers back up
 * only when a request arrives while output is already queued; our handlers answer asynchronously, so a burst of
 * pipelined requests is parsed, and would all be run, before the first answer exists. Each connection here runs
 * at most MAX_IN_FLIGHT requests at once, and starts the next only when its socket has drained: a client that
 * never reads costs a few answers in socket buffers, and Node's own check then stops reading the connection.
 * Written by hand: no library sits between Node's server and the Hono adaptor to do this.
 *
 * Requests held here produce no output yet, so Node's check (which looks at queued output) misses them: past
 * MAX_WAITING held requests the connection stops being read, by the same switch Node uses (`_paused` plus
 * pause()), so Node's own resume-on-drain and its guard against body reads resuming the socket both respect it.
 */

/** Requests of one connection run at once (HTTP/1.1 answers them in order anyway). */
export const MAX_IN_FLIGHT = 4;

/** Requests of one connection held before it stops being read; it is read again at half this. */
export const MAX_WAITING = 16;

/** Node's HTTP server marks a connection it stopped reading with `_paused` (node/lib/_http_server.js). */
type HttpSocket = Socket & { _paused?: boolean; parser?: { pause(): void; resume(): void } | null };

const stopReading = (socket: HttpSocket): void => {
  socket._paused = true;
  socket.pause();
};

const readAgain = (socket: HttpSocket): void => {
  socket._paused = false;
  socket.parser?.resume();
  socket.resume();
};

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
    // Node resumes a stopped connection when its output drains; while too many requests are held, stop it again.
    socket.on('resume', () => {
      if (state !== undefined && state.waiting.length >= MAX_WAITING) stopReading(socket);
    });
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
  const http = socket as HttpSocket;
  if (http._paused === true && state.waiting.length <= MAX_WAITING / 2 && !socket.writableNeedDrain)
    readAgain(http);
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
  if (state.waiting.length >= MAX_WAITING) stopReading(socket);
  return new Promise<void>((resolve) => {
    state.waiting.push(() => {
      start();
      resolve();
    });
  });
};
