import type { HttpBindings } from '@hono/node-server';
import type { Context, ErrorHandler, MiddlewareHandler, Next } from 'hono';
import { type AnswerWatcher, LarderResponse } from '../../http/larder-response.js';
import type { RequestFacts } from '../../http/request-facts.js';
import { sentLocation } from '../../http/request-header.js';
import type { Journal } from '../../sandbox/journal.js';
import type { Clock } from '../../shared/clock.js';

export interface JournalDeps {
  journal: Journal;
  clock: Clock;
  /** The operation id of a request (`METHOD`, path), or undefined for paths that have none. Called per request. */
  operationOf: (method: string, path: string) => string | undefined;
  /** Paths not journaled (the admin API, the docs page): the journal shows the integration's traffic. */
  skip?: (path: string) => boolean;
  /**
   * Answers what the rest of the pipeline throws when the journal must wait for it itself (no LarderResponse, as
   * in app.request), so the entry has the status the client gets: the error edge.
   */
  onError: ErrorHandler;
  /**
   * A middleware run inside the journal's own pipeline layer, as its next step (fault injection and the request
   * deadline, see src/http/inline-middleware.ts): a layer of Hono's compose costs a cached-token GET by id
   * about 1% of its CPU.
   */
  inner?: MiddlewareHandler;
}

/**
 * One request on its way to the journal: what the middleware knew when it started, and the facts the rest of the
 * pipeline notes, which it collects itself unless an earlier middleware (the access log) already does. One object
 * with a method, not closures and a facts object of its own: it is all the journal allocates per request.
 */
class JournalCall implements AnswerWatcher, RequestFacts {
  clientId: string | undefined = undefined;
  code: number | string | undefined = undefined;
  tokenFingerprint: string | undefined = undefined;
  tokenExpiresAtMs: number | undefined = undefined;
  body: unknown = undefined;
  pageToken: string | undefined = undefined;
  pageSize: number | undefined = undefined;
  hasNextPage: boolean | undefined = undefined;
  retryAfterSeconds: number | undefined = undefined;
  fault: string | undefined = undefined;
  status: number | undefined = undefined;
  private readonly facts: RequestFacts;

  constructor(
    private readonly deps: Pick<JournalDeps, 'journal' | 'operationOf'>,
    private readonly c: Context,
    private readonly timeMs: number,
    private readonly started: number,
    private readonly method: string,
    private readonly path: string,
  ) {
    const collected = c.get('facts');
    if (collected === undefined) c.set('facts', this);
    this.facts = collected ?? this;
  }

  answered(status: number): void {
    const { c, facts, method, path } = this;
    // The client went away first: the error its half-read body made (40002) was never sent to anyone.
    if (status === 0 && facts.status === undefined) facts.code = undefined;
    // Authorized retail requests have it parsed already (an ASCII location id); only refused ones need the header
    // read again, as sent: one in UTF-8 is shown, and matched by ?location=, as the client wrote it.
    const location = c.get('locationId') ?? sentLocation(c);
    this.deps.journal.recordRequest(
      this.timeMs,
      method,
      path,
      facts.status ?? status,
      Math.round((performance.now() - this.started) * 1000) / 1000,
      c.get('requestId'),
      this.deps.operationOf(method, path),
      location,
      facts,
    );
  }
}

/**
 * Records every answered request in the bounded journal, with the facts its middlewares and handler noted. The
 * facts object becomes the entry, which the journal copies into its row (src/sandbox/journal.ts), so nothing of
 * the request outlives it; the ISO time is made only when the journal is read.
 *
 * Served by Larder's server, the entry is written when the answer's head is (LarderResponse), so the journal adds
 * no step to the pipeline's promise chain; what an inner layer throws is answered by Hono's compose through the
 * error edge before that. Elsewhere (app.request) it waits for the pipeline and answers an inner error itself.
 */
export const journalRequests = (deps: JournalDeps): MiddlewareHandler => {
  const { clock, skip, inner, onError } = deps;
  const run = (c: Context, next: Next): ReturnType<MiddlewareHandler> =>
    inner === undefined ? next() : inner(c, next);
  /**
   * Without Larder's response: waits for the rest of the pipeline. A rejection (the inner layers' own: Hono's
   * compose answers those of later layers) is answered here, so the entry records the status sent.
   */
  const settleAfter = (c: Context, next: Next, call: JournalCall): Promise<void> => {
    let ran: Promise<unknown>;
    try {
      ran = Promise.resolve(run(c, next));
    } catch (error) {
      ran = Promise.reject(error);
    }
    return ran.then(
      () => call.answered(c.res.status),
      (error: unknown) => {
        const settle = (response: Response): void => {
          c.res = response;
          call.answered(response.status);
        };
        const answer = onError(error as Error, c);
        return answer instanceof Promise ? answer.then(settle) : settle(answer);
      },
    );
  };
  return (c, next) => {
    const { path } = c.req;
    if (skip?.(path) === true) return run(c, next);
    const call = new JournalCall(deps, c, clock.now(), performance.now(), c.req.method, path);
    const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing;
    if (!(outgoing instanceof LarderResponse)) return settleAfter(c, next, call);
    outgoing.watchAnswer(call);
    return run(c, next);
  };
};
