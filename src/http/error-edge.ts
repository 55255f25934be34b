import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import {
  type ErrorCode,
  isLarderError,
  isStoreError,
  LarderError,
  type StoreErrorCode,
} from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { toErrorMessage } from './error-message.js';
import { noteFacts } from './request-facts.js';

/** The HTTP meaning of each storage failure: storage raises StoreErrors, the status is chosen here. */
const STORE_TO_HTTP: Record<StoreErrorCode, ErrorCode> = {
  STORE_UNAVAILABLE: 'ERR_UNAVAILABLE',
  STORE_CLOSED: 'ERR_UNAVAILABLE',
  STORE_LOCKED: 'ERR_UNAVAILABLE',
  STORE_DUPLICATE: 'ERR_CONFLICT',
  STORE_NOT_FOUND: 'ERR_NOT_FOUND',
  STORE_INVALID_VALUE: 'ERR_VALIDATION',
  STORE_SCHEMA: 'ERR_INTERNAL',
  STORE_DAMAGED: 'ERR_INTERNAL',
};

/** What a client is told of a damaged or replaced database file: where it is and what to do are the log's. */
export const STORE_DAMAGED_MESSAGE =
  'The database file is damaged or was replaced; the server log says which file and what to do.';

const isDamage = (error: LarderError): boolean =>
  isStoreError(error.cause) && error.cause.code === 'STORE_DAMAGED';

/** Maps anything thrown to a LarderError; unknown failures become a 500 that never leaks a stack. */
export const toLarderError = (error: unknown): LarderError => {
  if (isLarderError(error)) return error;
  if (isStoreError(error)) {
    const code = STORE_TO_HTTP[error.code];
    // The server closes its store only once it has stopped serving: the request was cut by the stop, which is
    // no failure to log as one.
    if (error.code === 'STORE_CLOSED') return new LarderError(code, { cause: error, reported: true });
    if (error.code === 'STORE_DAMAGED')
      return new LarderError(code, { message: STORE_DAMAGED_MESSAGE, cause: error });
    return code === 'ERR_UNAVAILABLE' || code === 'ERR_INTERNAL'
      ? new LarderError(code, { cause: error })
      : new LarderError(code, { message: error.message, cause: error });
  }
  if (error instanceof HTTPException) {
    if (error.status === 413) return new LarderError('ERR_BODY_TOO_LARGE');
    if (error.status === 400) return new LarderError('ERR_VALIDATION', { message: error.message });
  }
  return new LarderError('ERR_INTERNAL', { cause: error });
};

/** The ErrorMessage body of `error` as JSON text. */
export const errorBody = (error: LarderError, requestId: string): string =>
  JSON.stringify(toErrorMessage(error, requestId));

/** An error body of another shape than ErrorMessage, for one path (the OAuth token endpoint's RFC 6749 body). */
export type ErrorShape = (c: Context, error: LarderError) => Response;

/**
 * The one error edge of the app: every error answer, whichever middleware or handler threw, is built here, with
 * the request id in the body and the header. 5xx are logged with their cause; 4xx are the client's business.
 */
export const createErrorEdge = (logger: Logger, shapes: ReadonlyMap<string, ErrorShape> = new Map()) => {
  // A damaged file fails request after request the same way: its cause, the file and what to do are logged in
  // full for the first (readiness says it once more); the rest are the access log's 500s.
  let damageLogged = false;
  return (thrown: unknown, c: Context) => {
    const error = toLarderError(thrown);
    const requestId = (c.get('requestId') as string | undefined) ?? randomUUID();
    // Readiness logs the damage itself (`reported`); the first request it fails is logged in full all the same.
    const damage = isDamage(error) && !error.reported;
    const repeatedDamage = damage && damageLogged;
    damageLogged ||= damage;
    if (error.injected)
      logger.info('injected fault answered', {
        requestId,
        method: c.req.method,
        path: c.req.path,
        status: error.status,
      });
    else if (error.status >= 500) {
      (error.reported || repeatedDamage ? logger.debug : logger.error)('request failed', {
        requestId,
        method: c.req.method,
        path: c.req.path,
        error: error.cause ?? error,
      });
    }
    const retryAfter = error.headers['Retry-After'];
    noteFacts(c, {
      code: error.numericCode,
      ...(retryAfter === undefined ? {} : { retryAfterSeconds: Number(retryAfter) }),
    });
    for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
    c.header('X-Request-Id', requestId);
    c.header('Cache-Control', 'no-store');
    const shape = shapes.get(c.req.path);
    if (shape !== undefined) return shape(c, error);
    return c.json(toErrorMessage(error, requestId), error.status as ContentfulStatusCode);
  };
};

/** An ErrorMessage answer outside the app: while it is starting, before any middleware exists. */
export const errorResponse = (error: LarderError, requestId: string = randomUUID()): Response =>
  new Response(errorBody(error, requestId), {
    status: error.status,
    headers: {
      'content-type': 'application/json',
      'x-request-id': requestId,
      'cache-control': 'no-store',
      ...error.headers,
    },
  });

/**
 * Requests Node's HTTP parser rejects before any handler runs (oversized headers or URL, malformed syntax)
 * still get an ErrorMessage body rather than a bare status line.
 */
export const answerClientError = (error: NodeJS.ErrnoException, socket: Duplex): void => {
  if (!socket.writable) return;
  const larderError =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new LarderError('ERR_HEADERS_TOO_LARGE')
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new LarderError('ERR_REQUEST_TIMEOUT')
        : new LarderError('ERR_VALIDATION', { message: 'The request is not valid HTTP.' });
  const body = errorBody(larderError, randomUUID());
  socket.end(
    `HTTP/1.1 ${larderError.status} ${STATUS_CODES[larderError.status]}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
};
