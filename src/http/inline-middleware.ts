import type { MiddlewareHandler } from 'hono';

/**
 * Runs `second` as `first`'s next step inside one pipeline layer. Each layer of Hono's compose is an async
 * function awaiting the next, about 1% of a cached-token GET by id; optional middlewares that share a layer cost
 * none of that. What either throws or rejects reaches the layer's own catch, which answers it through the error
 * edge as it would have at `second`'s own layer, so `first` must not act on `next()`'s outcome itself
 * (the journal and fault injection qualify; the access log, which logs after it, does not).
 */
export const inlineMiddleware =
  (first: MiddlewareHandler, second: MiddlewareHandler): MiddlewareHandler =>
  (c, next) =>
    first(c, () => second(c, next) as Promise<void>);
