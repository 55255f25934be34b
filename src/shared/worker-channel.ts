import { parentPort, type Transferable, type WorkerOptions } from 'node:worker_threads';
import { startWorker } from './start-worker.js';

/**
 * The one way Larder hands work to a worker thread: requests go in, answers come back in the order sent, and at
 * most `maxInFlight` requests are unanswered at once, so a slow consumer bounds memory (backpressure). The
 * importer sends record batches to convert; the seed sends "next batch" requests to a generator. Written by hand
 * rather than with a pool library: both need one long-lived, stateful worker (the generator walks a location
 * day by day) with ordered answers, which task pools such as piscina do not promise.
 */
export interface WorkerChannel<I, O> {
  /** Answers come in request order; a request is sent once fewer than `maxInFlight` are unanswered. */
  request(input: I, transfer?: readonly Transferable[]): Promise<O>;
  /** Stops the worker; unanswered requests reject. */
  close(): Promise<void>;
}

export interface WorkerChannelOptions extends Pick<WorkerOptions, 'workerData' | 'resourceLimits'> {
  /** Default 8. */
  maxInFlight?: number;
  /** Names the worker in errors: "The import's record worker stopped …". */
  name: string;
}

interface Pending<I, O> {
  input: I;
  transfer: readonly Transferable[];
  resolve(value: O): void;
  reject(error: unknown): void;
}

export const openWorkerChannel = <I, O>(script: URL, options: WorkerChannelOptions): WorkerChannel<I, O> => {
  const maxInFlight = options.maxInFlight ?? 8;
  const worker = startWorker(script, {
    ...(options.workerData === undefined ? {} : { workerData: options.workerData }),
    ...(options.resourceLimits === undefined ? {} : { resourceLimits: options.resourceLimits }),
  });
  // Sent and unanswered, oldest first; then waiting to be sent, in request order.
  const sent: Pending<I, O>[] = [];
  const queued: Pending<I, O>[] = [];
  let failure: { error: unknown } | undefined;
  const pump = () => {
    while (failure === undefined && sent.length < maxInFlight && queued.length > 0) {
      const next = queued.shift()!;
      sent.push(next);
      worker.postMessage(next.input, [...next.transfer]);
    }
  };
  const fail = (error: unknown) => {
    failure ??= { error };
    for (const pending of [...sent.splice(0), ...queued.splice(0)]) pending.reject(failure.error);
  };
  worker.on('message', (answer: O) => {
    sent.shift()?.resolve(answer);
    pump();
  });
  // 'error' comes on Node's internal port and can overtake answers the worker posted before it threw, so it is
  // only noted here. Node delivers every posted message before 'exit': the failure is raised there, and an exit
  // with requests unanswered is one even without an error.
  let thrown: { error: unknown } | undefined;
  worker.on('error', (error) => {
    thrown ??= { error };
  });
  worker.on('exit', (code) =>
    fail(thrown === undefined ? new Error(`${options.name} stopped (exit code ${code}).`) : thrown.error),
  );
  return {
    request: (input, transfer = []) => {
      if (failure !== undefined) return Promise.reject(failure.error);
      return new Promise<O>((resolve, reject) => {
        queued.push({ input, transfer, resolve, reject });
        pump();
      });
    },
    close: async () => {
      fail(new Error(`${options.name} was closed.`));
      await worker.terminate();
    },
  };
};

/** A worker's answer, with the buffers to transfer rather than copy. */
export interface Answer<O> {
  answer: O;
  transfer?: readonly Transferable[];
}

/** The worker side: answers each request with `handle`'s result, in the order the requests came. */
export const answerRequests = <I, O>(handle: (input: I) => Answer<O>): void => {
  if (parentPort === null) throw new Error('answerRequests runs in a worker thread.');
  const port = parentPort;
  port.on('message', (input: I) => {
    const { answer, transfer = [] } = handle(input);
    port.postMessage(answer, [...transfer]);
  });
};
