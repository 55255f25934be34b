import { type OutgoingHttpHeader, type OutgoingHttpHeaders, ServerResponse } from 'node:http';

/** Learns the status of a request's answer as its head is written. */
export interface AnswerWatcher {
  answered(status: number): void;
}

/**
 * The server's response class (node:http's `ServerResponse` option): headers the pipeline adds to every answer
 * (the request id, the rate-limit state) wait in one plain record and join the route's own in its `writeHead`.
 *
 * Why not `setHeader`: once any header is set that way, Node's `writeHead` takes its slow path and runs every
 * header of the answer through `setHeader` again (validation, lower-casing, a pair array each); with none set,
 * the route's record goes straight to the header writer. By CPU profile that was the largest part of what the
 * rate-limit headers cost a GET by id, and a share of every answer's.
 */
export class LarderResponse extends ServerResponse {
  #deferred: Record<string, string> | undefined;
  #watcher: AnswerWatcher | undefined;

  /**
   * Tells `watcher` the status once the answer's head is written (or `answeredWithoutHead` says there will be
   * none); 0 when the connection was gone before it. The request journal records this way: a `then` on the rest of the pipeline, with its closures and
   * promise, cost a cached-token GET by id measurably more.
   */
  watchAnswer(watcher: AnswerWatcher): void {
    this.#watcher = watcher;
  }

  /** The request ended without a head (a connection reset on purpose): the watcher learns `status`. */
  answeredWithoutHead(status: number): void {
    this.#settle(status);
  }

  #settle(status: number): void {
    const watcher = this.#watcher;
    if (watcher === undefined) return;
    this.#watcher = undefined;
    watcher.answered(status);
  }

  /**
   * Adds a header to the answer when it is written, replacing an earlier deferred value. `name` is in lower case,
   * as the records Hono's adapter hands `writeHead` are, so a route's own header of that name replaces it.
   */
  deferHeader(name: string, value: string): void {
    if (this.headersSent) return;
    this.#deferred ??= {};
    this.#deferred[name] = value;
  }

  /** Node's own headers first, then the deferred ones. */
  override getHeader(name: string): ReturnType<ServerResponse['getHeader']> {
    return super.getHeader(name) ?? this.#deferred?.[name.toLowerCase()];
  }

  override writeHead(
    statusCode: number,
    reason?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
    headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
  ): this {
    // A client gone before its answer (timed out during injected latency, say) saw no status: 0, as for a reset.
    this.#settle(this.destroyed ? 0 : statusCode);
    const deferred = this.#deferred;
    if (deferred === undefined) return super.writeHead(statusCode, reason as string, headers);
    this.#deferred = undefined;
    const message = typeof reason === 'string' ? reason : undefined;
    const given = typeof reason === 'string' ? headers : reason;
    if (Array.isArray(given)) {
      // Rare (no route of Larder's writes a list): the route's own headers win, as with a record.
      for (const name in deferred)
        if (this.getHeader(name) === undefined) this.setHeader(name, deferred[name]!);
      return super.writeHead(statusCode, message, given);
    }
    // A new record: the route's may be a constant shared by every answer. The route's own headers win.
    const merged = given === undefined ? deferred : Object.assign(deferred, given);
    return message === undefined
      ? super.writeHead(statusCode, merged)
      : super.writeHead(statusCode, message, merged);
  }
}
