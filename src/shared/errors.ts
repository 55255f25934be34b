import { MAX_BODY_BYTES } from './limits.js';

/**
 * Every failure Larder reports is a LarderError with a stable string `code` (like jose's JOSEError) that maps to
 * one HTTP status and one stable integer `numericCode`. The single edge handler (src/http/error-handler.ts)
 * turns it into the interface's ErrorMessage. The table below is the documented list (README "Error codes").
 */
export const ERROR_CATALOG = {
  ERR_VALIDATION: { status: 400, numericCode: 40001, message: 'The request is not valid.' },
  ERR_BODY_NOT_JSON: { status: 400, numericCode: 40002, message: 'The request body must be a JSON object.' },
  ERR_LOCATION_HEADER: {
    status: 400,
    numericCode: 40003,
    message: 'The Platform-Restaurant-External-ID header is required.',
  },
  ERR_INVALID_ID: { status: 400, numericCode: 40004, message: 'The identifier is not a UUID.' },
  ERR_PAGE_TOKEN: { status: 400, numericCode: 40005, message: 'The pageToken is not valid for this search.' },
  ERR_QUERY_PARAM: { status: 400, numericCode: 40006, message: 'A query parameter is not valid.' },
  ERR_DATE_RANGE: { status: 400, numericCode: 40007, message: 'endDate is before startDate.' },
  ERR_UNAUTHENTICATED: {
    status: 401,
    numericCode: 40101,
    message: 'A valid bearer access token is required.',
  },
  ERR_INVALID_CREDENTIALS: {
    status: 401,
    numericCode: 40102,
    message: 'The client credentials are not valid.',
  },
  ERR_ADMIN_UNAUTHENTICATED: {
    status: 401,
    numericCode: 40103,
    message: 'The admin API needs Authorization: Bearer <admin token>.',
  },
  ERR_INSUFFICIENT_SCOPE: {
    status: 403,
    numericCode: 40301,
    message: 'The access token lacks the scope this operation requires.',
  },
  ERR_LOCATION_FORBIDDEN: {
    status: 403,
    numericCode: 40302,
    message: 'The client is not granted access to this location.',
  },
  ERR_NOT_FOUND: { status: 404, numericCode: 40401, message: 'The record was not found at this location.' },
  ERR_LOCATION_NOT_FOUND: { status: 404, numericCode: 40403, message: 'The location is unknown.' },
  ERR_ROUTE_NOT_FOUND: { status: 404, numericCode: 40402, message: 'No such endpoint.' },
  ERR_CONFLICT: { status: 409, numericCode: 40901, message: 'The request conflicts with what exists.' },
  ERR_JOURNAL_OFF: {
    status: 409,
    numericCode: 40902,
    message: 'The request journal is off (--journal-size 0): no requests are recorded.',
  },
  ERR_METHOD_NOT_ALLOWED: { status: 405, numericCode: 40501, message: 'The method is not allowed here.' },
  ERR_REQUEST_TIMEOUT: { status: 408, numericCode: 40801, message: 'The request took too long to arrive.' },
  ERR_BODY_TOO_LARGE: {
    status: 413,
    numericCode: 41301,
    message: `The request body is over ${MAX_BODY_BYTES / 1024} KiB.`,
  },
  ERR_UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    numericCode: 41501,
    message: 'The request body must be sent as Content-Type: application/json.',
  },
  ERR_HEADERS_TOO_LARGE: {
    status: 431,
    numericCode: 43101,
    message: 'The request headers or URL are too large.',
  },
  ERR_RATE_LIMITED: { status: 429, numericCode: 42901, message: 'Too many failed attempts; retry later.' },
  ERR_RATE_LIMIT_EXCEEDED: {
    status: 429,
    numericCode: 42902,
    message: 'Rate limit exceeded; retry after the Retry-After seconds.',
  },
  ERR_INTERNAL: { status: 500, numericCode: 50001, message: 'Internal server error.' },
  ERR_BAD_GATEWAY: { status: 502, numericCode: 50201, message: 'Bad gateway; retry shortly.' },
  ERR_GATEWAY_TIMEOUT: { status: 504, numericCode: 50401, message: 'Gateway timeout; retry shortly.' },
  ERR_UNAVAILABLE: {
    status: 503,
    numericCode: 50301,
    message: 'The database is unavailable; retry shortly.',
  },
} as const satisfies Record<string, { status: number; numericCode: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

/** One field-level problem, reported as a nested ErrorMessage. */
export interface FieldProblem {
  fieldName: string;
  message: string;
}

export interface LarderErrorOptions {
  message?: string;
  fieldName?: string;
  developerMessage?: string;
  problems?: readonly FieldProblem[];
  headers?: Readonly<Record<string, string>>;
  cause?: unknown;
  /** Asked for by a fault rule or header: the answer is the sandbox working, not the server failing. */
  injected?: boolean;
  /**
   * Its source logs it as it sees fit (a readiness probe logs the change, not every probe; a stop says it
   * stopped): logged at debug.
   */
  reported?: boolean;
}

export class LarderError extends Error {
  override readonly name = 'LarderError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly numericCode: number;
  readonly fieldName: string | undefined;
  readonly developerMessage: string | undefined;
  readonly problems: readonly FieldProblem[];
  readonly headers: Readonly<Record<string, string>>;
  readonly injected: boolean;
  readonly reported: boolean;

  constructor(code: ErrorCode, options: LarderErrorOptions = {}) {
    const entry = ERROR_CATALOG[code];
    super(
      options.message ?? entry.message,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.code = code;
    this.status = entry.status;
    this.numericCode = entry.numericCode;
    this.fieldName = options.fieldName;
    this.developerMessage = options.developerMessage;
    this.problems = options.problems ?? [];
    this.headers = options.headers ?? {};
    this.injected = options.injected === true;
    this.reported = options.reported === true;
  }
}

export const isLarderError = (value: unknown): value is LarderError => value instanceof LarderError;

/**
 * Storage failures, raised alike by every backend. They carry no HTTP status: the error edge
 * (src/http/error-edge.ts) chooses it, and the CLI prints the message.
 */
export const STORE_ERROR_CODES = [
  /** The database cannot be reached, or the connection was lost (retry later). */
  'STORE_UNAVAILABLE',
  /** The store was closed (the server is stopping) before the operation ran or finished. */
  'STORE_CLOSED',
  /** Another process holds a lock the operation needs (SQLite: an exclusive import). */
  'STORE_LOCKED',
  /** A unique key already exists (a client id, ...). */
  'STORE_DUPLICATE',
  /** The row to change does not exist. */
  'STORE_NOT_FOUND',
  /** A value the database cannot hold (a NUL byte in text on PostgreSQL, ...). */
  'STORE_INVALID_VALUE',
  /** The schema is newer or older than this Larder understands. */
  'STORE_SCHEMA',
  /** The database file is damaged (SQLite: a corrupt page, or not a database at all), or was replaced, emptied or
   * removed (or its WAL) under the open store; restore it, or restart on the file now there. */
  'STORE_DAMAGED',
] as const;

export type StoreErrorCode = (typeof STORE_ERROR_CODES)[number];

export class StoreError extends Error {
  override readonly name = 'StoreError';
  readonly code: StoreErrorCode;

  constructor(code: StoreErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }
}

export const isStoreError = (value: unknown): value is StoreError => value instanceof StoreError;
