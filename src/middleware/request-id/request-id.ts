import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { requestHeader, setResponseHeader } from '../../http/request-header.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** The caller's X-Request-Id when it is sane, else a new UUID; echoed in the header and every error body. */
    requestId: string;
  }
}

const SANE_REQUEST_ID = /^[\w.:@/+=-]{1,128}$/;

/** Gives every request an id, first in the pipeline, so every later answer (errors included) carries it. */
export const requestId = (): MiddlewareHandler => (c, next) => {
  const incoming = requestHeader(c, 'x-request-id');
  const id = incoming !== undefined && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  c.set('requestId', id);
  setResponseHeader(c, 'x-request-id', id);
  // Not async: nothing follows the rest of the pipeline, so no frame needs to wait for it.
  return next();
};
