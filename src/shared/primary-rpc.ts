import { type ErrorCode, isLarderError, LarderError } from './errors.js';

/**
 * Calls from a worker of `--workers N` to state the primary holds (the rate-limit counters, the fault rules), so
 * every worker counts against one total: a sandbox user runs one server, and per-worker counts would make its
 * limits N times looser and its "every Nth request" wrong. Answers come back by id, in any order.
 */

interface CallMessage {
  larder: 'rpc:call';
  service: string;
  id: number;
  method: string;
  arg: unknown;
}
interface AnswerMessage {
  larder: 'rpc:answer';
  service: string;
  id: number;
  result?: unknown;
  error?: { message: string; status?: number; body?: unknown };
}

const isMessage = (message: unknown, kind: string, service: string): boolean =>
  typeof message === 'object' &&
  message !== null &&
  (message as { larder?: unknown }).larder === kind &&
  (message as { service?: unknown }).service === service;

export interface ProcessChannel {
  send?: (message: unknown) => boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
}

/** How a failed call comes back: an error the primary's handler threw, rebuilt by `revive`. */
export type Revive = (error: { message: string; status?: number; body?: unknown }) => Error;

/** A LarderError crosses with its code, so a worker answers the primary's 404 or 409 as one process would. */
const describeError = (error: unknown): NonNullable<AnswerMessage['error']> =>
  isLarderError(error)
    ? { message: error.message, body: { code: error.code, fieldName: error.fieldName } }
    : { message: String(error) };

const reviveError: Revive = (error) => {
  const body = error.body as { code?: ErrorCode; fieldName?: string } | undefined;
  if (body?.code === undefined) return new Error(error.message);
  return new LarderError(body.code, {
    message: error.message,
    ...(body.fieldName === undefined ? {} : { fieldName: body.fieldName }),
  });
};

/** A worker's side: `call('take', arg)` resolves with what the primary's handler returned. */
export const primaryCaller = (channel: ProcessChannel, service: string, revive: Revive = reviveError) => {
  let next = 0;
  const waiting = new Map<number, { resolve(value: unknown): void; reject(error: unknown): void }>();
  channel.on('message', (message) => {
    if (!isMessage(message, 'rpc:answer', service)) return;
    const answer = message as AnswerMessage;
    const pending = waiting.get(answer.id);
    if (pending === undefined) return;
    waiting.delete(answer.id);
    if (answer.error === undefined) pending.resolve(answer.result);
    else pending.reject(revive(answer.error));
  });
  return (method: string, arg?: unknown): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve, reject });
      channel.send?.({ larder: 'rpc:call', service, id, method, arg } satisfies CallMessage);
    });
};

interface WorkerEnd {
  send(message: unknown): unknown;
}

/** The primary's side: answers each worker's calls to `service` with `handlers[method](arg)`. */
export const servePrimary = (
  onMessage: (listener: (worker: WorkerEnd, message: unknown) => void) => void,
  service: string,
  /** A handler's promise is answered when it settles. */
  handlers: Readonly<Record<string, (arg: unknown) => unknown>>,
  describe: (error: unknown) => NonNullable<AnswerMessage['error']> = describeError,
): void => {
  onMessage((worker, message) => {
    if (!isMessage(message, 'rpc:call', service)) return;
    const call = message as CallMessage;
    const answer: AnswerMessage = { larder: 'rpc:answer', service, id: call.id };
    let result: unknown;
    try {
      const handler = handlers[call.method];
      if (handler === undefined) throw new Error(`unknown ${service} call ${call.method}`);
      result = handler(call.arg);
    } catch (error) {
      answer.error = describe(error);
    }
    // A handler may answer later (a change every worker must have taken up first); the rest answer at once.
    if (result instanceof Promise)
      result.then(
        (value: unknown) => worker.send({ ...answer, result: value }),
        (error: unknown) => worker.send({ ...answer, error: describe(error) }),
      );
    else {
      if (answer.error === undefined) answer.result = result;
      worker.send(answer);
    }
  });
};
